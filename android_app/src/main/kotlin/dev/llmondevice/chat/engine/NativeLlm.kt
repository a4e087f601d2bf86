package dev.llmondevice.chat.engine

import java.io.File

/**
 * The JNI functions of //runtime/jni (llm_engine_jni.cc). Only [LlmEngine] calls these:
 * a handle is a native session that [open] creates and [close] destroys.
 */
internal object NativeLlm {
    /** Set by host tests to an absolute path of libllm_engine_jni.so; the app uses the APK's copy. */
    const val LIBRARY_PATH_PROPERTY = "dev.llmondevice.jni.path"

    init {
        val explicit = System.getProperty(LIBRARY_PATH_PROPERTY)
        if (explicit != null) {
            System.load(File(explicit).absolutePath)
        } else {
            System.loadLibrary("llm_engine_jni")
        }
    }

    @JvmStatic external fun executorchVersion(): String

    /** [pteOffset]/[pteLength] 0/0 = the whole file; "" as [manifestPath] looks beside the .pte. */
    @JvmStatic external fun open(
        ptePath: String,
        pteOffset: Long,
        pteLength: Long,
        manifestPath: String,
        tokenizerPath: String,
        threads: Int,
        warmup: Boolean,
    ): Long

    @JvmStatic external fun close(handle: Long)

    @JvmStatic external fun stop(handle: Long)

    /** Forgets the cached conversation. */
    @JvmStatic external fun reset(handle: Long)

    /** {max_seq_len, max_context_len, vocab_size, threads, load_us, warmup_us}. */
    @JvmStatic external fun limits(handle: Long): LongArray

    /** Streams into [sink] and returns the runtime's stats JSON. */
    @JvmStatic external fun generate(
        handle: Long,
        roles: Array<String>,
        contents: Array<String>,
        maxNewTokens: Int,
        temperature: Float,
        topP: Float,
        seed: Long,
        contextPolicy: String,
        replyReserve: Int,
        speculative: Boolean,
        sink: TokenSink,
    ): String
}

/** Called from the native generation loop; return false to stop. */
internal fun interface TokenSink {
    fun onToken(
        id: Long,
        text: String,
    ): Boolean
}
