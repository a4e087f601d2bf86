package dev.llmondevice.chat.rag

import dev.llmondevice.chat.engine.ChatMessage
import dev.llmondevice.chat.engine.ChatMessage.Role

/**
 * Builds the messages the engine sends through the model's chat template: an optional
 * system message, as much recent history as fits, and the question, with any retrieved
 * passages placed in front of it.
 *
 * With no passages and no history the result is just the question as one user message,
 * which is what `llm_main --prompt=...` sends; the host test relies on that.
 *
 * The budget is in characters (about [charsPerToken] per token), a cheap, conservative
 * stand-in for tokenizing each candidate prompt; the runtime still rejects a prompt that
 * does not fit, with its own message.
 */
class PromptAssembler(
    private val systemPrompt: String? = null,
    private val charsPerToken: Int = 3,
) {
    data class Exchange(
        val question: String,
        val answer: String,
    )

    fun assemble(
        history: List<Exchange>,
        question: String,
        passages: List<Passage> = emptyList(),
        contextTokens: Long,
        reservedForAnswer: Int,
    ): List<ChatMessage> {
        val budget = (contextTokens - reservedForAnswer) * charsPerToken
        val system = systemPrompt?.let { listOf(ChatMessage(Role.SYSTEM, it)) }.orEmpty()
        val last = ChatMessage(Role.USER, withPassages(question, passages))
        var used = system.sumOf { it.content.length } + last.content.length
        val kept = ArrayDeque<ChatMessage>()
        for (exchange in history.asReversed()) {
            val size = exchange.question.length + exchange.answer.length
            if (used + size > budget) break
            used += size
            kept.addFirst(ChatMessage(Role.ASSISTANT, exchange.answer))
            kept.addFirst(ChatMessage(Role.USER, exchange.question))
        }
        return system + kept + last
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
