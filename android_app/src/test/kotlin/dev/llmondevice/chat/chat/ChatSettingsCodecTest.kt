package dev.llmondevice.chat.chat

import dev.llmondevice.chat.engine.ContextPolicy
import kotlin.test.Test
import kotlin.test.assertEquals

class ChatSettingsCodecTest {
    @Test
    fun settingsRoundTrip() {
        val settings =
            ChatSettings(
                threads = 3,
                maxNewTokens = 64,
                temperature = 0.7f,
                modelName = "llama_fp32",
                contextPolicy = ContextPolicy.ERROR,
                speculative = true,
            )
        assertEquals(settings, ChatSettingsCodec.decode(ChatSettingsCodec.encode(settings)))
    }

    @Test
    fun nothingSavedGivesTheDefaults() {
        assertEquals(ChatSettings(), ChatSettingsCodec.decode(emptyMap()))
    }

    @Test
    fun badValuesFallBackOneByOne() {
        val decoded =
            ChatSettingsCodec.decode(
                mapOf(
                    "threads" to "-2",
                    "max_new_tokens" to "lots",
                    "temperature" to "0.5",
                    "model" to "",
                    "context_policy" to "sliding_window",
                    "speculative" to "yes",
                ),
            )
        assertEquals(ChatSettings(temperature = 0.5f), decoded)
    }
}
