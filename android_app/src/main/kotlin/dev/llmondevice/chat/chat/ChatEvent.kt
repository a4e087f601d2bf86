package dev.llmondevice.chat.chat

/** Everything that changes [ChatUiState]: the ViewModel turns engine callbacks and user input into these. */
sealed interface ChatEvent {
    data class LoadProgress(
        val stage: LoadStage,
        val progress: Float,
    ) : ChatEvent

    data class Loaded(
        val ready: EngineStatus.Ready,
    ) : ChatEvent

    data class LoadFailed(
        val problem: ModelProblem,
    ) : ChatEvent

    data class QuestionAsked(
        val turnId: Long,
        val question: String,
    ) : ChatEvent

    data class TokenStreamed(
        val turnId: Long,
        val text: String,
    ) : ChatEvent

    data class AnswerFinished(
        val turnId: Long,
        val stopped: Boolean,
        val tokens: Int,
        /** Null when the answer was cancelled before the runtime reported its figures. */
        val ttftMs: Double?,
        val tokensPerSecond: Double?,
        val droppedTurns: Int = 0,
        val reusedTokens: Int = 0,
    ) : ChatEvent

    data class AnswerFailed(
        val turnId: Long,
        val message: String,
    ) : ChatEvent

    data class SettingsChanged(
        val settings: ChatSettings,
    ) : ChatEvent

    data class ThermalNotice(
        val notice: String?,
    ) : ChatEvent

    data object Cleared : ChatEvent
}
