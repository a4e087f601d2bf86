package dev.llmondevice.chat.ui

import androidx.activity.compose.BackHandler
import androidx.compose.runtime.Composable
import androidx.compose.runtime.getValue
import androidx.compose.runtime.mutableStateOf
import androidx.compose.runtime.saveable.rememberSaveable
import androidx.compose.runtime.setValue
import androidx.lifecycle.compose.collectAsStateWithLifecycle
import dev.llmondevice.chat.app.ChatViewModel
import dev.llmondevice.chat.chat.EngineStatus

/**
 * Picks the screen from the state: the error screen when the model cannot be used, the
 * loading screen before the first answer, otherwise the chat (or its settings).
 */
@Composable
fun ChatApp(viewModel: ChatViewModel) {
    // Collects only while the screen is at least STARTED: no recompositions in the background.
    val state by viewModel.uiState.collectAsStateWithLifecycle()
    val modelNames by viewModel.modelNames.collectAsStateWithLifecycle()
    var showSettings by rememberSaveable { mutableStateOf(false) }

    // An answer runs in the ViewModel, so rotation and a trip to another app do not stop
    // it; only the Stop button (or leaving the app for good) does.
    // System Back from Settings returns to the chat instead of closing the app.
    BackHandler(enabled = showSettings) { showSettings = false }

    val engine = state.engine
    when {
        showSettings -> {
            SettingsScreen(
                settings = state.settings,
                modelNames = modelNames,
                onChange = viewModel::updateSettings,
                onDone = { showSettings = false },
            )
        }

        engine is EngineStatus.Failed -> {
            ModelErrorScreen(
                problem = engine.problem,
                onRetry = viewModel::retryLoad,
                onOpenSettings = { showSettings = true },
            )
        }

        engine is EngineStatus.Loading && state.turns.isEmpty() -> {
            LoadingScreen(engine)
        }

        else -> {
            ChatScreen(
                state = state,
                onSend = viewModel::send,
                onStop = viewModel::stopAnswer,
                onClear = viewModel::clearChat,
                onOpenSettings = { showSettings = true },
            )
        }
    }
}
