package dev.llmondevice.chat.engine

/** How to sample one answer. Greedy (temperature 0) gives the same text as `llm_main`. */
data class GenerationParams(
    val maxNewTokens: Int = 256,
    val temperature: Float = 0f,
    val topP: Float = 1f,
    val seed: Long = 0,
) {
    init {
        require(maxNewTokens >= 1) { "maxNewTokens must be at least 1, got $maxNewTokens" }
        require(temperature >= 0f) { "temperature must be >= 0 (0 = greedy), got $temperature" }
        require(topP > 0f && topP <= 1f) { "topP must be in (0, 1], got $topP" }
    }
}
