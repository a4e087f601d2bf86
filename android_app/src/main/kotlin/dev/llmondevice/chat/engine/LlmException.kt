package dev.llmondevice.chat.engine

/** A failure reported by the native runtime; the message is the runtime's own (what and how to fix). */
open class LlmException(
    message: String,
) : RuntimeException(message)

/** The `.pte` or tokenizer is missing, corrupt or does not fit this runtime. */
class ModelLoadException(
    message: String,
) : LlmException(message)
