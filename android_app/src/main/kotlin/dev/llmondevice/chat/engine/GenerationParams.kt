package dev.llmondevice.chat.engine

/** How to sample one answer. Greedy (temperature 0) gives the same text as `llm_main`. */
data class GenerationParams(
    val maxNewTokens: Int = 256,
    val temperature: Float = 0f,
    val topP: Float = 1f,
    val seed: Long = 0,
    /** What the runtime does when the conversation no longer fits the context. */
    val contextPolicy: ContextPolicy = ContextPolicy.ERROR,
    /** Tokens of context kept free for the answer; 0 = [maxNewTokens], at most half the context. */
    val replyReserve: Int = 0,
    /**
     * Prompt-lookup speculative decoding: drafts from the conversation, verified several tokens
     * per forward call. Greedy answers are unchanged; with a temperature, or a program without
     * verify rows, the runtime decodes plainly and its stats say why.
     */
    val speculative: Boolean = false,
) {
    init {
        require(maxNewTokens >= 1) { "maxNewTokens must be at least 1, got $maxNewTokens" }
        require(temperature >= 0f) { "temperature must be >= 0 (0 = greedy), got $temperature" }
        require(topP > 0f && topP <= 1f) { "topP must be in (0, 1], got $topP" }
        require(replyReserve >= 0) { "replyReserve must be >= 0, got $replyReserve" }
    }

    /** The reserve the runtime is given for a program with [maxContextLen] tokens of context. */
    fun replyReserveFor(maxContextLen: Long): Int =
        if (replyReserve > 0) replyReserve else minOf(maxNewTokens.toLong(), maxOf(1L, maxContextLen / 2)).toInt()
}
