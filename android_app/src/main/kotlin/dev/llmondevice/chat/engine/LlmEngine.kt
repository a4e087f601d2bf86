package dev.llmondevice.chat.engine

/**
 * The native runtime (//runtime/jni over //runtime:llm_runtime) behind a Kotlin API.
 *
 * - [load] checks the `.pte` against its manifest's sha256, memory-maps it (the runtime's
 *   LlmProgram; the file is never read into the Java heap), loads the tokenizer and
 *   optionally runs a one-token warm-up. The program's limits, max_seq_len included, are
 *   fixed from then on.
 * - [generate] blocks the calling thread and streams each token to `onToken` from the
 *   native loop, in order. Call it from one background thread at a time. It takes the
 *   whole conversation each time; the native session reuses the KV cache for the part it
 *   already holds, so a follow-up prefills only the new turn ([GenerationStats.reusedTokens]).
 * - [resetConversation] forgets that cache (a new chat).
 * - [stop] may be called from any thread: the native loop delivers no further token.
 *
 * Plain JVM code with no Android imports, so the host tests drive this same class.
 */
class LlmEngine : AutoCloseable {
    private val sessionLock = Any()
    private val handleLock = Any()

    @Volatile private var handle = 0L

    @Volatile private var lastStats: GenerationStats? = null

    /** Limits of the loaded program, or null before [load]. */
    @Volatile var limits: ModelLimits? = null
        private set

    /**
     * Loads a program and its tokenizer, replacing any loaded one.
     * @throws ModelLoadException with the runtime's message for a missing, damaged (its
     *   sha256 is not the manifest's) or incompatible file.
     */
    fun load(
        ptePath: String,
        tokenizerPath: String,
        threads: Int = defaultThreads(),
        warmup: Boolean = true,
        program: ProgramLocation = ProgramLocation(),
    ): ModelLimits =
        synchronized(sessionLock) {
            require(threads >= 1) { "threads must be at least 1, got $threads" }
            release()
            val opened =
                NativeLlm.open(
                    ptePath,
                    program.offset,
                    program.length,
                    program.manifestPath,
                    tokenizerPath,
                    threads,
                    warmup,
                )
            val values = NativeLlm.limits(opened)
            synchronized(handleLock) { handle = opened }
            ModelLimits(
                maxSeqLen = values[0],
                maxContextLen = values[1],
                vocabSize = values[2],
                threads = values[3].toInt(),
                loadMs = values[4] / 1000.0,
                warmupMs = values[5] / 1000.0,
            ).also { limits = it }
        }

    /**
     * Answers the conversation [prompt] (the model's chat template is applied natively),
     * calling [onToken] for each token as it is sampled. Returns when the answer ends,
     * [stop] is called, or [onToken] throws (the exception is rethrown here).
     * @throws LlmException with the runtime's message, e.g. for a prompt longer than the
     *   context.
     */
    fun generate(
        prompt: List<ChatMessage>,
        params: GenerationParams = GenerationParams(),
        onToken: (StreamedToken) -> Unit,
    ): GenerationStats =
        synchronized(sessionLock) {
            check(handle != 0L) { "no model loaded: call load() first" }
            require(prompt.isNotEmpty()) { "the prompt has no messages" }
            val json =
                NativeLlm.generate(
                    handle,
                    prompt.map { it.role.wireName }.toTypedArray(),
                    prompt.map { it.content }.toTypedArray(),
                    params.maxNewTokens,
                    params.temperature,
                    params.topP,
                    params.seed,
                    params.contextPolicy.wireName,
                    params.replyReserveFor(limits?.maxContextLen ?: 0L),
                    params.speculative,
                ) { id, text ->
                    onToken(StreamedToken(id, text))
                    true
                }
            GenerationStats.fromJson(json).also { lastStats = it }
        }

    /** Forgets the cached conversation: the next [generate] prefills from scratch. */
    fun resetConversation() =
        synchronized(sessionLock) {
            if (handle != 0L) NativeLlm.reset(handle)
        }

    /** Stops a running [generate] before its next token; a no-op when idle. Thread-safe. */
    fun stop() {
        synchronized(handleLock) {
            if (handle != 0L) NativeLlm.stop(handle)
        }
    }

    /** Figures of the last finished [generate], or null. */
    fun stats(): GenerationStats? = lastStats

    /** Stops any generation, waits for it, and frees the native session and mapping. */
    override fun close() {
        stop()
        synchronized(sessionLock) { release() }
    }

    private fun release() {
        val old =
            synchronized(handleLock) {
                handle.also { handle = 0L }
            }
        if (old != 0L) NativeLlm.close(old)
        limits = null
    }

    companion object {
        /** Half the cores, at least one: room for the UI thread and for thermal headroom. */
        fun defaultThreads(): Int = maxOf(1, Runtime.getRuntime().availableProcessors() / 2)

        /** The ExecuTorch release the native runtime was built against (for the manifest check). */
        fun executorchVersion(): String = NativeLlm.executorchVersion()
    }
}
