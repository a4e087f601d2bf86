package dev.llmondevice.chat.rag

/** A retrieved piece of text and where it came from (shown as its citation). */
data class Passage(
    val source: String,
    val text: String,
)
