package dev.llmondevice.chat.app

import android.os.Bundle
import androidx.activity.ComponentActivity
import androidx.activity.compose.setContent
import androidx.activity.enableEdgeToEdge
import androidx.activity.viewModels
import androidx.core.splashscreen.SplashScreen.Companion.installSplashScreen
import dev.llmondevice.chat.ui.ChatApp
import dev.llmondevice.chat.ui.ChatTheme

/**
 * The only activity. The splash screen lasts until the first frame; by then the
 * ViewModel has started loading the model on its engine thread, and the loading screen
 * shows its progress.
 */
class MainActivity : ComponentActivity() {
    private val viewModel: ChatViewModel by viewModels()

    override fun onCreate(savedInstanceState: Bundle?) {
        installSplashScreen()
        super.onCreate(savedInstanceState)
        enableEdgeToEdge()
        setContent {
            ChatTheme {
                ChatApp(viewModel)
            }
        }
    }
}
