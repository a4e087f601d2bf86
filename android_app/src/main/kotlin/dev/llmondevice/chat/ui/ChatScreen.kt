package dev.llmondevice.chat.ui

import androidx.compose.foundation.layout.Arrangement
import androidx.compose.foundation.layout.Column
import androidx.compose.foundation.layout.PaddingValues
import androidx.compose.foundation.layout.Row
import androidx.compose.foundation.layout.fillMaxSize
import androidx.compose.foundation.layout.fillMaxWidth
import androidx.compose.foundation.layout.imePadding
import androidx.compose.foundation.layout.padding
import androidx.compose.foundation.lazy.LazyColumn
import androidx.compose.foundation.lazy.items
import androidx.compose.foundation.lazy.rememberLazyListState
import androidx.compose.foundation.shape.RoundedCornerShape
import androidx.compose.material3.Button
import androidx.compose.material3.ExperimentalMaterial3Api
import androidx.compose.material3.LinearProgressIndicator
import androidx.compose.material3.MaterialTheme
import androidx.compose.material3.OutlinedButton
import androidx.compose.material3.OutlinedTextField
import androidx.compose.material3.Scaffold
import androidx.compose.material3.Surface
import androidx.compose.material3.Text
import androidx.compose.material3.TextButton
import androidx.compose.material3.TopAppBar
import androidx.compose.runtime.Composable
import androidx.compose.runtime.LaunchedEffect
import androidx.compose.runtime.getValue
import androidx.compose.runtime.mutableStateOf
import androidx.compose.runtime.saveable.rememberSaveable
import androidx.compose.runtime.setValue
import androidx.compose.ui.Alignment
import androidx.compose.ui.Modifier
import androidx.compose.ui.unit.dp
import dev.llmondevice.chat.chat.AnswerStatus
import dev.llmondevice.chat.chat.ChatTurn
import dev.llmondevice.chat.chat.ChatUiState
import dev.llmondevice.chat.chat.EngineStatus
import dev.llmondevice.chat.chat.figures

/** The conversation: streaming answers with TTFT and tok/s under each. */
@OptIn(ExperimentalMaterial3Api::class)
@Composable
fun ChatScreen(
    state: ChatUiState,
    onSend: (String) -> Unit,
    onStop: () -> Unit,
    onClear: () -> Unit,
    onOpenSettings: () -> Unit,
    modifier: Modifier = Modifier,
) {
    val ready = state.engine as? EngineStatus.Ready
    Scaffold(
        modifier = modifier,
        topBar = {
            TopAppBar(
                title = { Text(ready?.let { "${it.modelName} · ${it.threads} threads" } ?: "Loading…") },
                actions = {
                    TextButton(onClick = onClear, enabled = !state.isGenerating) { Text("Clear") }
                    TextButton(onClick = onOpenSettings) { Text("Settings") }
                },
            )
        },
    ) { padding ->
        Column(
            Modifier
                .fillMaxSize()
                .padding(padding)
                .imePadding(),
        ) {
            if (state.engine is EngineStatus.Loading) {
                LinearProgressIndicator(Modifier.fillMaxWidth())
            }
            state.thermalNotice?.let { ThermalBanner(it) }
            Conversation(state.turns, Modifier.weight(1f))
            Composer(
                canSend = state.canSend,
                generating = state.isGenerating,
                onSend = onSend,
                onStop = onStop,
            )
        }
    }
}

@Composable
private fun ThermalBanner(notice: String) {
    Surface(color = MaterialTheme.colorScheme.errorContainer, modifier = Modifier.fillMaxWidth()) {
        Text(
            notice,
            color = MaterialTheme.colorScheme.onErrorContainer,
            style = MaterialTheme.typography.bodySmall,
            modifier = Modifier.padding(horizontal = 16.dp, vertical = 8.dp),
        )
    }
}

@Composable
private fun Conversation(
    turns: List<ChatTurn>,
    modifier: Modifier = Modifier,
) {
    val listState = rememberLazyListState()
    val last = turns.lastOrNull()
    // Follow the streaming answer as it grows.
    LaunchedEffect(turns.size, last?.answer?.length) {
        if (turns.isNotEmpty()) listState.scrollToItem(turns.size - 1)
    }
    LazyColumn(
        state = listState,
        modifier = modifier.fillMaxWidth(),
        verticalArrangement = Arrangement.spacedBy(12.dp),
        contentPadding = PaddingValues(16.dp),
    ) {
        items(turns, key = { it.id }) { turn -> Turn(turn) }
    }
}

@Composable
private fun Turn(turn: ChatTurn) {
    Column(verticalArrangement = Arrangement.spacedBy(6.dp)) {
        Surface(
            color = MaterialTheme.colorScheme.primaryContainer,
            shape = RoundedCornerShape(12.dp),
            modifier = Modifier.align(Alignment.End),
        ) {
            Text(turn.question, modifier = Modifier.padding(12.dp))
        }
        Text(
            turn.answer.ifEmpty { if (turn.status == AnswerStatus.STREAMING) "…" else "" },
            style = MaterialTheme.typography.bodyLarge,
        )
        AnswerFooter(turn)
    }
}

@Composable
private fun AnswerFooter(turn: ChatTurn) {
    val text =
        when (turn.status) {
            AnswerStatus.STREAMING -> null
            AnswerStatus.FAILED -> "Failed: ${turn.error}"
            AnswerStatus.DONE, AnswerStatus.STOPPED -> turn.figures()
        }
    if (text != null) {
        Text(
            text,
            style = MaterialTheme.typography.labelSmall,
            color = if (turn.status == AnswerStatus.FAILED) MaterialTheme.colorScheme.error else MaterialTheme.colorScheme.outline,
        )
    }
}

@Composable
private fun Composer(
    canSend: Boolean,
    generating: Boolean,
    onSend: (String) -> Unit,
    onStop: () -> Unit,
) {
    var draft by rememberSaveable { mutableStateOf("") }
    Row(
        modifier = Modifier.fillMaxWidth().padding(12.dp),
        verticalAlignment = Alignment.CenterVertically,
        horizontalArrangement = Arrangement.spacedBy(8.dp),
    ) {
        OutlinedTextField(
            value = draft,
            onValueChange = { draft = it },
            placeholder = { Text("Ask something") },
            modifier = Modifier.weight(1f),
            maxLines = 5,
        )
        if (generating) {
            OutlinedButton(onClick = onStop) { Text("Stop") }
        } else {
            Button(
                onClick = {
                    onSend(draft)
                    draft = ""
                },
                enabled = canSend && draft.isNotBlank(),
            ) { Text("Send") }
        }
    }
}
