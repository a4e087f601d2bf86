package dev.llmondevice.chat.chat

import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFalse
import kotlin.test.assertIs
import kotlin.test.assertTrue

class ChatReducerTest {
    private val ready = EngineStatus.Ready("llama_int4", threads = 2, maxContextLen = 2048, loadMs = 210.0)

    private fun reduce(
        vararg events: ChatEvent,
        from: ChatUiState = ChatUiState(),
    ): ChatUiState = events.fold(from) { state, event -> ChatReducer.reduce(state, event) }

    @Test
    fun loadingProgressThenReady() {
        val loading = reduce(ChatEvent.LoadProgress(LoadStage.LOADING, 1.7f))
        assertEquals(EngineStatus.Loading(LoadStage.LOADING, 1f), loading.engine)
        assertFalse(loading.canSend)
        assertTrue(reduce(ChatEvent.Loaded(ready), from = loading).canSend)
    }

    @Test
    fun tokensAppendInOrderAndStatsLandOnTheTurn() {
        val state =
            reduce(
                ChatEvent.Loaded(ready),
                ChatEvent.QuestionAsked(1, "Capital of France?"),
                ChatEvent.TokenStreamed(1, "The"),
                ChatEvent.TokenStreamed(1, " capital"),
                ChatEvent.TokenStreamed(1, ""),
                ChatEvent.TokenStreamed(1, " is Paris."),
            )
        assertTrue(state.isGenerating)
        assertFalse(state.canSend)
        assertEquals("The capital is Paris.", state.turns.single().answer)
        assertEquals(4, state.turns.single().tokens)

        val done = reduce(ChatEvent.AnswerFinished(1, stopped = false, tokens = 4, ttftMs = 38.0, tokensPerSecond = 240.0), from = state)
        val turn = done.turns.single()
        assertEquals(AnswerStatus.DONE, turn.status)
        assertEquals(38.0, turn.ttftMs)
        assertEquals(240.0, turn.tokensPerSecond)
        assertTrue(done.canSend)
    }

    @Test
    fun lateTokensAfterAStopDoNotChangeTheAnswer() {
        val stopped =
            reduce(
                ChatEvent.Loaded(ready),
                ChatEvent.QuestionAsked(7, "Count"),
                ChatEvent.TokenStreamed(7, "1"),
                ChatEvent.AnswerFinished(7, stopped = true, tokens = 1, ttftMs = 10.0, tokensPerSecond = 0.0),
                ChatEvent.TokenStreamed(7, " 2"),
                ChatEvent.AnswerFailed(7, "too late"),
            )
        val turn = stopped.turns.single()
        assertEquals(AnswerStatus.STOPPED, turn.status)
        assertEquals("1", turn.answer)
    }

    @Test
    fun aQuestionWhileGeneratingOrLoadingIsIgnored() {
        assertTrue(reduce(ChatEvent.QuestionAsked(1, "too early")).turns.isEmpty())
        val busy =
            reduce(
                ChatEvent.Loaded(ready),
                ChatEvent.QuestionAsked(1, "first"),
                ChatEvent.QuestionAsked(2, "second"),
            )
        assertEquals(listOf(1L), busy.turns.map { it.id })
    }

    @Test
    fun failuresKeepTheMessageAndTheEngineErrorReplacesTheChat() {
        val failed =
            reduce(
                ChatEvent.Loaded(ready),
                ChatEvent.QuestionAsked(1, "x".repeat(10)),
                ChatEvent.AnswerFailed(1, "the prompt is 5000 tokens but the model's context is 2048"),
            )
        assertEquals(AnswerStatus.FAILED, failed.turns.single().status)
        assertTrue(
            failed.turns
                .single()
                .error!!
                .contains("context is 2048"),
        )

        val broken = reduce(ChatEvent.LoadFailed(ModelProblem("Model missing", "no file")), from = failed)
        assertIs<EngineStatus.Failed>(broken.engine)
        assertFalse(broken.canSend)
    }

    @Test
    fun clearingWaitsForTheAnswerToEnd() {
        val streaming = reduce(ChatEvent.Loaded(ready), ChatEvent.QuestionAsked(1, "q"))
        assertEquals(1, reduce(ChatEvent.Cleared, from = streaming).turns.size)
        val done = reduce(ChatEvent.AnswerFinished(1, false, 0, 0.0, 0.0), ChatEvent.Cleared, from = streaming)
        assertTrue(done.turns.isEmpty())
    }

    @Test
    fun settingsAndThermalNotice() {
        val settings = ChatSettings(threads = 1, maxNewTokens = 64, temperature = 0.7f, modelName = "tiny")
        val state = reduce(ChatEvent.SettingsChanged(settings), ChatEvent.ThermalNotice("hot"))
        assertEquals(settings, state.settings)
        assertEquals("hot", state.thermalNotice)
        assertEquals(null, reduce(ChatEvent.ThermalNotice(null), from = state).thermalNotice)
    }

    @Test
    fun figuresUnderAnAnswer() {
        val done = ChatTurn(1, "q", "a", AnswerStatus.DONE, tokens = 51, ttftMs = 38.44, tokensPerSecond = 238.66)
        assertEquals("TTFT 38 ms · 238.7 tok/s · 51 tokens", done.figures())
        val cancelled = done.copy(status = AnswerStatus.STOPPED, ttftMs = null, tokensPerSecond = null, tokens = 3)
        assertEquals("3 tokens · stopped", cancelled.figures())
    }

    @Test
    fun anAnswerSaysWhenOlderTurnsWereLeftOut() {
        var state = ChatReducer.reduce(ChatUiState(engine = EngineStatus.Ready("m", 2, 2048, 1.0)), ChatEvent.QuestionAsked(1, "q"))
        state =
            ChatReducer.reduce(
                state,
                ChatEvent.AnswerFinished(
                    1,
                    stopped = false,
                    tokens = 3,
                    ttftMs = 12.0,
                    tokensPerSecond = 0.0,
                    droppedTurns = 2,
                    reusedTokens = 40,
                ),
            )
        val turn = state.turns.single()
        assertEquals(2, turn.droppedTurns)
        assertEquals(40, turn.reusedTokens)
        assertEquals("TTFT 12 ms · 3 tokens · the 2 oldest turns were left out to fit the context", turn.figures())
        val whole = ChatTurn(1, "q", status = AnswerStatus.DONE, tokens = 3, ttftMs = 12.0)
        assertEquals("TTFT 12 ms · 3 tokens", whole.figures())
    }
}
