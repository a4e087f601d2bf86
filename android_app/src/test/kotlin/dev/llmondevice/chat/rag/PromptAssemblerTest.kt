package dev.llmondevice.chat.rag

import dev.llmondevice.chat.engine.ChatMessage
import dev.llmondevice.chat.engine.ChatMessage.Role
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

class PromptAssemblerTest {
    @Test
    fun aLoneQuestionIsOneUserMessageLikeLlmMain() {
        val messages =
            PromptAssembler().assemble(
                history = emptyList(),
                question = "What is the capital of France?",
                passages = NoContext.retrieve("What is the capital of France?"),
            )
        assertEquals(listOf(ChatMessage(Role.USER, "What is the capital of France?")), messages)
    }

    @Test
    fun historyAlternatesAfterTheSystemMessage() {
        val messages =
            PromptAssembler(systemPrompt = "Be brief.").assemble(
                history = listOf(PromptAssembler.Exchange("q1", "a1"), PromptAssembler.Exchange("q2", "a2")),
                question = "q3",
            )
        assertEquals(
            listOf(Role.SYSTEM, Role.USER, Role.ASSISTANT, Role.USER, Role.ASSISTANT, Role.USER),
            messages.map { it.role },
        )
        assertEquals(listOf("Be brief.", "q1", "a1", "q2", "a2", "q3"), messages.map { it.content })
    }

    @Test
    fun theWholeHistoryIsSentForTheRuntimeToFit() {
        // The runtime's context policy leaves turns out by their real token counts; the
        // assembler must not guess and drop them first.
        val long = "x".repeat(10_000)
        val messages =
            PromptAssembler().assemble(
                history = listOf(PromptAssembler.Exchange("old", long), PromptAssembler.Exchange("new", long)),
                question = "q",
            )
        assertEquals(listOf("old", long, "new", long, "q"), messages.map { it.content })
    }

    @Test
    fun passagesGoBeforeTheQuestionNumberedWithTheirSources() {
        val provider =
            ContextProvider { question ->
                listOf(Passage("austen.txt", "  It is a truth universally acknowledged.  "), Passage("kjv.txt", "In the beginning"))
                    .filter { question.isNotEmpty() }
            }
        val user =
            PromptAssembler()
                .assemble(emptyList(), "Who wrote it?", provider.retrieve("Who wrote it?"))
                .single()
        assertEquals(Role.USER, user.role)
        assertTrue(user.content.contains("[1] (austen.txt) It is a truth universally acknowledged.\n\n[2] (kjv.txt) In the beginning"))
        assertTrue(user.content.endsWith("Question: Who wrote it?"))
    }
}
