package dev.llmondevice.chat.chat

/**
 * The only place [ChatUiState] changes: a pure function, so ordering and edge cases are
 * unit-tested on the host. Events for a turn that is no longer streaming (a late token
 * after a stop, say) are ignored rather than corrupting a finished answer.
 */
object ChatReducer {
    fun reduce(
        state: ChatUiState,
        event: ChatEvent,
    ): ChatUiState =
        when (event) {
            is ChatEvent.LoadProgress -> {
                state.copy(engine = EngineStatus.Loading(event.stage, event.progress.coerceIn(0f, 1f)))
            }

            is ChatEvent.Loaded -> {
                state.copy(engine = event.ready)
            }

            is ChatEvent.LoadFailed -> {
                state.copy(engine = EngineStatus.Failed(event.problem))
            }

            is ChatEvent.QuestionAsked -> {
                if (!state.canSend) state else state.copy(turns = state.turns + ChatTurn(event.turnId, event.question))
            }

            is ChatEvent.TokenStreamed -> {
                state.updateStreaming(event.turnId) { it.copy(answer = it.answer + event.text, tokens = it.tokens + 1) }
            }

            is ChatEvent.AnswerFinished -> {
                state.updateStreaming(event.turnId) {
                    it.copy(
                        status = if (event.stopped) AnswerStatus.STOPPED else AnswerStatus.DONE,
                        tokens = event.tokens,
                        ttftMs = event.ttftMs,
                        tokensPerSecond = event.tokensPerSecond,
                        droppedTurns = event.droppedTurns,
                        reusedTokens = event.reusedTokens,
                    )
                }
            }

            is ChatEvent.AnswerFailed -> {
                state.updateStreaming(event.turnId) { it.copy(status = AnswerStatus.FAILED, error = event.message) }
            }

            is ChatEvent.SettingsChanged -> {
                state.copy(settings = event.settings)
            }

            is ChatEvent.ThermalNotice -> {
                state.copy(thermalNotice = event.notice)
            }

            ChatEvent.Cleared -> {
                if (state.isGenerating) state else state.copy(turns = emptyList())
            }
        }

    private fun ChatUiState.updateStreaming(
        turnId: Long,
        change: (ChatTurn) -> ChatTurn,
    ): ChatUiState =
        copy(
            turns =
                turns.map { turn ->
                    if (turn.id == turnId && turn.status == AnswerStatus.STREAMING) change(turn) else turn
                },
        )
}
