package dev.llmondevice.chat.engine

/**
 * One sampled token and the text it completes. [text] is empty while a character
 * split across tokens (an emoji is often three) waits for its last bytes.
 */
data class StreamedToken(
    val id: Long,
    val text: String,
)
