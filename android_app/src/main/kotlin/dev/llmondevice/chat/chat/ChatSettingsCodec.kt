package dev.llmondevice.chat.chat

import dev.llmondevice.chat.engine.ContextPolicy

/**
 * [ChatSettings] as string pairs, the shape a key-value store (SharedPreferences) keeps, so
 * settings survive a restart. Reading is forgiving: a missing, unparsable or out-of-range
 * value (an older app version wrote it, or none was saved yet) falls back to its default
 * instead of failing the start.
 */
object ChatSettingsCodec {
    private const val THREADS = "threads"
    private const val MAX_NEW_TOKENS = "max_new_tokens"
    private const val TEMPERATURE = "temperature"
    private const val MODEL = "model"
    private const val CONTEXT_POLICY = "context_policy"
    private const val SPECULATIVE = "speculative"

    fun encode(settings: ChatSettings): Map<String, String> =
        mapOf(
            THREADS to settings.threads.toString(),
            MAX_NEW_TOKENS to settings.maxNewTokens.toString(),
            TEMPERATURE to settings.temperature.toString(),
            MODEL to settings.modelName,
            CONTEXT_POLICY to settings.contextPolicy.wireName,
            SPECULATIVE to settings.speculative.toString(),
        )

    fun decode(values: Map<String, String>): ChatSettings {
        val defaults = ChatSettings()
        return ChatSettings(
            threads = values[THREADS]?.toIntOrNull()?.takeIf { it >= 0 } ?: defaults.threads,
            maxNewTokens = values[MAX_NEW_TOKENS]?.toIntOrNull()?.takeIf { it >= 1 } ?: defaults.maxNewTokens,
            temperature = values[TEMPERATURE]?.toFloatOrNull()?.takeIf { it >= 0f } ?: defaults.temperature,
            modelName = values[MODEL]?.takeIf { it.isNotBlank() } ?: defaults.modelName,
            contextPolicy = values[CONTEXT_POLICY]?.let(ContextPolicy::fromWireName) ?: defaults.contextPolicy,
            speculative = values[SPECULATIVE]?.toBooleanStrictOrNull() ?: defaults.speculative,
        )
    }
}
