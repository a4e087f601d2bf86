package dev.llmondevice.chat.rag

import dev.llmondevice.chat.engine.ChatMessage
import dev.llmondevice.chat.engine.ChatMessage.Role

/**
 * Builds the messages the engine sends through the model's chat template: an optional
 * system message, the whole history, and the question, with any retrieved passages placed
 * in front of it.
 *
 * With no passages and no history the result is just the question as one user message,
 * which is what `llm_main --prompt=...` sends; the host test relies on that.
 *
 * Fitting the context is not done here: the runtime counts the real tokens and applies the
 * chosen [dev.llmondevice.chat.engine.ContextPolicy] (leave out the oldest whole turns, or
 * refuse), and reports what it left out in the answer's stats.
 */
class PromptAssembler(
    private val systemPrompt: String? = null,
) {
    data class Exchange(
        val question: String,
        val answer: String,
    )

    fun assemble(
        history: List<Exchange>,
        question: String,
        passages: List<Passage> = emptyList(),
    ): List<ChatMessage> {
        val system = systemPrompt?.let { listOf(ChatMessage(Role.SYSTEM, it)) }.orEmpty()
        val earlier = history.flatMap { listOf(ChatMessage(Role.USER, it.question), ChatMessage(Role.ASSISTANT, it.answer)) }
        return system + earlier + ChatMessage(Role.USER, withPassages(question, passages))
    }

    private fun withPassages(
        question: String,
        passages: List<Passage>,
    ): String {
        if (passages.isEmpty()) return question
        val context =
            passages.withIndex().joinToString("\n\n") { (i, passage) ->
                "[${i + 1}] (${passage.source}) ${passage.text.trim()}"
            }
        return "Answer using these passages, and cite them by number.\n\n$context\n\nQuestion: $question"
    }
}
