package dev.llmondevice.chat.ui

import androidx.compose.foundation.layout.Arrangement
import androidx.compose.foundation.layout.Column
import androidx.compose.foundation.layout.fillMaxSize
import androidx.compose.foundation.layout.fillMaxWidth
import androidx.compose.foundation.layout.padding
import androidx.compose.material3.CircularProgressIndicator
import androidx.compose.material3.LinearProgressIndicator
import androidx.compose.material3.MaterialTheme
import androidx.compose.material3.Text
import androidx.compose.runtime.Composable
import androidx.compose.ui.Alignment
import androidx.compose.ui.Modifier
import androidx.compose.ui.unit.dp
import dev.llmondevice.chat.chat.EngineStatus
import dev.llmondevice.chat.chat.LoadStage

/** Shown while the model unpacks, maps and warms up (all on the engine thread). */
@Composable
fun LoadingScreen(
    loading: EngineStatus.Loading,
    modifier: Modifier = Modifier,
) {
    Column(
        modifier = modifier.fillMaxSize().padding(32.dp),
        verticalArrangement = Arrangement.spacedBy(16.dp, Alignment.CenterVertically),
        horizontalAlignment = Alignment.CenterHorizontally,
    ) {
        Text(loading.stage.label, style = MaterialTheme.typography.titleMedium)
        when (loading.stage) {
            // Unpacking reports bytes copied; loading is one native call with no steps to count.
            LoadStage.PREPARING_FILES -> {
                LinearProgressIndicator(progress = { loading.progress }, modifier = Modifier.fillMaxWidth())
            }

            LoadStage.LOADING -> {
                CircularProgressIndicator()
            }
        }
    }
}
