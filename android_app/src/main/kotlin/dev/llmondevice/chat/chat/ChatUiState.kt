package dev.llmondevice.chat.chat

import dev.llmondevice.chat.engine.ContextPolicy

/** Everything the chat screens draw; produced only by [ChatReducer]. */
data class ChatUiState(
    val engine: EngineStatus = EngineStatus.Loading(LoadStage.PREPARING_FILES, 0f),
    val turns: List<ChatTurn> = emptyList(),
    val settings: ChatSettings = ChatSettings(),
    /** Set while the thermal policy holds the app back; shown above the input. */
    val thermalNotice: String? = null,
) {
    val isGenerating: Boolean get() = turns.lastOrNull()?.status == AnswerStatus.STREAMING

    val canSend: Boolean get() = engine is EngineStatus.Ready && !isGenerating
}

sealed interface EngineStatus {
    data class Loading(
        val stage: LoadStage,
        /** 0..1 within [stage]. */
        val progress: Float,
    ) : EngineStatus

    data class Ready(
        val modelName: String,
        val threads: Int,
        val maxContextLen: Long,
        val loadMs: Double,
    ) : EngineStatus

    data class Failed(
        val problem: ModelProblem,
    ) : EngineStatus
}

enum class LoadStage(
    val label: String,
) {
    PREPARING_FILES("Unpacking the model"),

    /** One native call: mmap, verify, XNNPACK weight packing and the one-token warm-up. */
    LOADING("Loading and warming up the model"),
}

/** Why the model cannot be used, with the manifest's version lines for the error screen. */
data class ModelProblem(
    val title: String,
    val message: String,
    val manifest: List<Pair<String, String>> = emptyList(),
    val runtimeExecutorch: String = "",
)

enum class AnswerStatus { STREAMING, DONE, STOPPED, FAILED }

data class ChatTurn(
    val id: Long,
    val question: String,
    val answer: String = "",
    val status: AnswerStatus = AnswerStatus.STREAMING,
    val tokens: Int = 0,
    val ttftMs: Double? = null,
    val tokensPerSecond: Double? = null,
    val error: String? = null,
    /** Earlier turns the runtime left out of this answer's context (shown under the answer). */
    val droppedTurns: Int = 0,
    /** Prompt tokens served from the KV cache instead of prefilled again. */
    val reusedTokens: Int = 0,
)

data class ChatSettings(
    /** 0 = the engine's default, half the cores. */
    val threads: Int = 0,
    val maxNewTokens: Int = 256,
    val temperature: Float = 0f,
    val modelName: String = "llama_int4",
    /** A chat app keeps going when the conversation outgrows the context: it forgets the oldest turns. */
    val contextPolicy: ContextPolicy = ContextPolicy.DROP_OLDEST_TURNS,
    /** Draft answer tokens from the conversation and verify several per step; the text is unchanged. */
    val speculative: Boolean = false,
)
