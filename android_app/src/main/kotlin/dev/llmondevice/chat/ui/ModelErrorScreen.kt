package dev.llmondevice.chat.ui

import androidx.compose.foundation.layout.Arrangement
import androidx.compose.foundation.layout.Column
import androidx.compose.foundation.layout.Row
import androidx.compose.foundation.layout.fillMaxSize
import androidx.compose.foundation.layout.fillMaxWidth
import androidx.compose.foundation.layout.padding
import androidx.compose.foundation.rememberScrollState
import androidx.compose.foundation.text.selection.SelectionContainer
import androidx.compose.foundation.verticalScroll
import androidx.compose.material3.Button
import androidx.compose.material3.MaterialTheme
import androidx.compose.material3.OutlinedButton
import androidx.compose.material3.Text
import androidx.compose.runtime.Composable
import androidx.compose.ui.Modifier
import androidx.compose.ui.unit.dp
import dev.llmondevice.chat.chat.ModelProblem

/**
 * A missing, corrupt or incompatible `.pte`: what happened (the runtime's own message),
 * and the manifest's version lines next to the app's runtime version, so the user can
 * see which side to rebuild. Selectable, to paste into a bug report.
 */
@Composable
fun ModelErrorScreen(
    problem: ModelProblem,
    onRetry: () -> Unit,
    onOpenSettings: () -> Unit,
    modifier: Modifier = Modifier,
) {
    Column(
        modifier =
            modifier
                .fillMaxSize()
                .padding(24.dp)
                .verticalScroll(rememberScrollState()),
        verticalArrangement = Arrangement.spacedBy(16.dp),
    ) {
        Text(problem.title, style = MaterialTheme.typography.headlineSmall, color = MaterialTheme.colorScheme.error)
        SelectionContainer {
            Column(verticalArrangement = Arrangement.spacedBy(12.dp)) {
                Text(problem.message, style = MaterialTheme.typography.bodyLarge)
                if (problem.runtimeExecutorch.isNotEmpty()) {
                    VersionLine("this app's runtime: ExecuTorch", problem.runtimeExecutorch)
                }
                if (problem.manifest.isEmpty()) {
                    Text(
                        "No manifest was found next to the program, so its versions are unknown.",
                        style = MaterialTheme.typography.bodySmall,
                    )
                } else {
                    Text("The program's manifest", style = MaterialTheme.typography.titleSmall)
                    problem.manifest.forEach { (name, value) -> VersionLine(name, value) }
                }
            }
        }
        Row(horizontalArrangement = Arrangement.spacedBy(12.dp)) {
            Button(onClick = onRetry) { Text("Try again") }
            OutlinedButton(onClick = onOpenSettings) { Text("Choose another model") }
        }
    }
}

@Composable
private fun VersionLine(
    name: String,
    value: String,
) {
    Row(Modifier.fillMaxWidth(), horizontalArrangement = Arrangement.spacedBy(8.dp)) {
        Text(name, style = MaterialTheme.typography.labelMedium, modifier = Modifier.weight(0.45f))
        Text(value, style = MaterialTheme.typography.bodySmall, modifier = Modifier.weight(0.55f))
    }
}
