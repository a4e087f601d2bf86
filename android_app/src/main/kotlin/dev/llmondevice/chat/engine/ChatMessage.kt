package dev.llmondevice.chat.engine

/** One turn of a conversation, as the model's chat template sees it. */
data class ChatMessage(
    val role: Role,
    val content: String,
) {
    enum class Role(
        val wireName: String,
    ) {
        SYSTEM("system"),
        USER("user"),
        ASSISTANT("assistant"),
    }
}
