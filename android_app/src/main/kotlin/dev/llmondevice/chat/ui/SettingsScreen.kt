package dev.llmondevice.chat.ui

import androidx.compose.foundation.layout.Arrangement
import androidx.compose.foundation.layout.Column
import androidx.compose.foundation.layout.Row
import androidx.compose.foundation.layout.fillMaxSize
import androidx.compose.foundation.layout.padding
import androidx.compose.foundation.rememberScrollState
import androidx.compose.foundation.selection.selectable
import androidx.compose.foundation.verticalScroll
import androidx.compose.material3.ExperimentalMaterial3Api
import androidx.compose.material3.MaterialTheme
import androidx.compose.material3.RadioButton
import androidx.compose.material3.Scaffold
import androidx.compose.material3.Slider
import androidx.compose.material3.Switch
import androidx.compose.material3.Text
import androidx.compose.material3.TextButton
import androidx.compose.material3.TopAppBar
import androidx.compose.runtime.Composable
import androidx.compose.runtime.getValue
import androidx.compose.runtime.mutableStateOf
import androidx.compose.runtime.remember
import androidx.compose.runtime.setValue
import androidx.compose.ui.Alignment
import androidx.compose.ui.Modifier
import androidx.compose.ui.unit.dp
import dev.llmondevice.chat.chat.ChatSettings
import dev.llmondevice.chat.engine.ContextPolicy
import dev.llmondevice.chat.engine.LlmEngine
import java.util.Locale
import kotlin.math.roundToInt

/**
 * Threads, answer length, temperature, speculative decoding, context policy and model. Changes apply when the
 * user taps Done (system Back discards them); a new model or thread count reloads the
 * engine (threads are fixed at load). Settings persist across restarts.
 */
@OptIn(ExperimentalMaterial3Api::class)
@Composable
fun SettingsScreen(
    settings: ChatSettings,
    modelNames: List<String>,
    onChange: (ChatSettings) -> Unit,
    onDone: () -> Unit,
    modifier: Modifier = Modifier,
) {
    var draft by remember(settings) { mutableStateOf(settings) }
    val maxThreads = Runtime.getRuntime().availableProcessors()
    Scaffold(
        modifier = modifier,
        topBar = {
            TopAppBar(
                title = { Text("Settings") },
                actions = {
                    TextButton(onClick = {
                        onChange(draft)
                        onDone()
                    }) { Text("Done") }
                },
            )
        },
    ) { padding ->
        Column(
            Modifier
                .fillMaxSize()
                .padding(padding)
                .padding(horizontal = 16.dp)
                .verticalScroll(rememberScrollState()),
            verticalArrangement = Arrangement.spacedBy(20.dp),
        ) {
            val threadsLabel =
                if (draft.threads ==
                    0
                ) {
                    "Threads: automatic (${LlmEngine.defaultThreads()}, half the cores)"
                } else {
                    "Threads: ${draft.threads}"
                }
            LabeledSlider(threadsLabel, draft.threads.toFloat(), 0f..maxThreads.toFloat(), steps = maxThreads - 1) {
                draft = draft.copy(threads = it.roundToInt())
            }
            LabeledSlider("Max new tokens: ${draft.maxNewTokens}", draft.maxNewTokens.toFloat(), 16f..1024f, steps = 62) {
                draft = draft.copy(maxNewTokens = (it / 16).roundToInt() * 16)
            }
            val temperatureLabel =
                if (draft.temperature == 0f) {
                    "Temperature: 0 (greedy)"
                } else {
                    String.format(Locale.ROOT, "Temperature: %.1f", draft.temperature)
                }
            LabeledSlider(temperatureLabel, draft.temperature, 0f..1.5f, steps = 14) {
                draft = draft.copy(temperature = (it * 10).roundToInt() / 10f)
            }
            Row(verticalAlignment = Alignment.CenterVertically) {
                Column(Modifier.weight(1f)) {
                    Text("Speculative decoding", style = MaterialTheme.typography.titleSmall)
                    Text(
                        "Drafts the answer from the conversation and checks several tokens per step: " +
                            "faster on answers that quote it, the same text.",
                        style = MaterialTheme.typography.bodySmall,
                        color = MaterialTheme.colorScheme.outline,
                    )
                }
                Switch(checked = draft.speculative, onCheckedChange = { draft = draft.copy(speculative = it) })
            }
            Text("When the conversation outgrows the context", style = MaterialTheme.typography.titleSmall)
            ContextPolicy.entries.forEach { policy ->
                Row(
                    Modifier.selectable(
                        selected = policy == draft.contextPolicy,
                        onClick = { draft = draft.copy(contextPolicy = policy) },
                    ),
                    verticalAlignment = Alignment.CenterVertically,
                ) {
                    RadioButton(selected = policy == draft.contextPolicy, onClick = null)
                    Text(policy.label, modifier = Modifier.padding(start = 8.dp))
                }
            }
            Text("Model", style = MaterialTheme.typography.titleSmall)
            modelNames.forEach { name ->
                Row(
                    Modifier.selectable(selected = name == draft.modelName, onClick = { draft = draft.copy(modelName = name) }),
                    verticalAlignment = Alignment.CenterVertically,
                ) {
                    RadioButton(selected = name == draft.modelName, onClick = null)
                    Text(name, modifier = Modifier.padding(start = 8.dp))
                }
            }
            Text(
                "Other models: adb push <name>.pte, <name>.manifest.json and a .tok to " +
                    "/sdcard/Android/data/dev.llmondevice.chat/files/models/",
                style = MaterialTheme.typography.bodySmall,
                color = MaterialTheme.colorScheme.outline,
            )
        }
    }
}

@Composable
private fun LabeledSlider(
    label: String,
    value: Float,
    range: ClosedFloatingPointRange<Float>,
    steps: Int,
    onValueChange: (Float) -> Unit,
) {
    Column {
        Text(label, style = MaterialTheme.typography.titleSmall)
        Slider(value = value, onValueChange = onValueChange, valueRange = range, steps = steps)
    }
}
