package dev.llmondevice.chat.app

import android.app.Application
import androidx.lifecycle.AndroidViewModel
import androidx.lifecycle.viewModelScope
import dev.llmondevice.chat.chat.AnswerStatus
import dev.llmondevice.chat.chat.ChatEvent
import dev.llmondevice.chat.chat.ChatReducer
import dev.llmondevice.chat.chat.ChatSettings
import dev.llmondevice.chat.chat.ChatUiState
import dev.llmondevice.chat.chat.EngineStatus
import dev.llmondevice.chat.chat.LoadStage
import dev.llmondevice.chat.chat.ModelProblem
import dev.llmondevice.chat.engine.GenerationParams
import dev.llmondevice.chat.engine.LlmEngine
import dev.llmondevice.chat.engine.LlmException
import dev.llmondevice.chat.engine.ModelLoadException
import dev.llmondevice.chat.model.ModelManifest
import dev.llmondevice.chat.rag.ContextProvider
import dev.llmondevice.chat.rag.NoContext
import dev.llmondevice.chat.rag.PromptAssembler
import dev.llmondevice.chat.thermal.ThermalDecision
import dev.llmondevice.chat.thermal.ThermalPolicy
import dev.llmondevice.chat.thermal.ThermalReading
import kotlinx.coroutines.CancellationException
import kotlinx.coroutines.Job
import kotlinx.coroutines.asCoroutineDispatcher
import kotlinx.coroutines.currentCoroutineContext
import kotlinx.coroutines.delay
import kotlinx.coroutines.ensureActive
import kotlinx.coroutines.flow.MutableStateFlow
import kotlinx.coroutines.flow.StateFlow
import kotlinx.coroutines.flow.asStateFlow
import kotlinx.coroutines.flow.update
import kotlinx.coroutines.job
import kotlinx.coroutines.launch
import java.io.IOException
import java.util.concurrent.Executors

/**
 * Owns the engine and turns its work into [ChatUiState] through [ChatReducer].
 *
 * Every engine call (load, answer, reload, close) runs on ONE thread, [engineDispatcher]:
 * tokens reach the state in the order the native loop produced them, and a reload can
 * never overlap an answer. Nothing here blocks the main thread.
 *
 * An answer belongs to the ViewModel's lifetime, not to the activity's: rotating the phone
 * or leaving the app for a moment does not cut it off, and its tokens are in the state when
 * the screen comes back. Stopping: [stopAnswer] (the Stop button) sets the native stop
 * flag, so the loop ends before its next token; leaving for good ([onCleared]) also cancels
 * the coroutine, whose token callback then throws into the native loop, which stops at once.
 *
 * Each answer sends the whole conversation; the native session reuses the KV cache for the
 * turns it already holds, and the settings' context policy decides what happens when the
 * conversation outgrows the context. Settings persist across restarts ([SettingsStore]).
 */
class ChatViewModel(
    application: Application,
    /** The RAG seam (see ContextProvider): NoContext until retrieval is wired in. */
    private val contextProvider: ContextProvider,
) : AndroidViewModel(application) {
    /** What the default ViewModel factory calls (by viewModels()): no retrieval. */
    constructor(application: Application) : this(application, NoContext)

    private val engine = LlmEngine()
    private val engineExecutor = Executors.newSingleThreadExecutor { task -> Thread(task, "llm-engine") }
    private val engineDispatcher = engineExecutor.asCoroutineDispatcher()
    private val modelFiles = ModelFiles(application)
    private val assembler = PromptAssembler()
    private val thermalPolicy = ThermalPolicy(preferredThreads = LlmEngine.defaultThreads())

    private val settingsStore = SettingsStore(application)
    private val mutableState = MutableStateFlow(ChatUiState(settings = settingsStore.load()))
    val uiState: StateFlow<ChatUiState> = mutableState.asStateFlow()

    /** Written on the main thread, read by the engine thread before each answer. */
    @Volatile private var thermal: ThermalDecision = thermalPolicy.normal

    /** True while the native loop runs; before that (queued, pausing) there is nothing to flag. */
    @Volatile private var nativeRunning = false

    // Read and written on the engine thread only.
    private var loadedThreads = 0
    private var answerJob: Job? = null
    private var nextTurnId = 1L

    init {
        load()
        viewModelScope.launch {
            ThermalMonitor(application).readings().collect(::onThermalReading)
        }
    }

    private val mutableModelNames = MutableStateFlow(listOf(ModelFiles.BUNDLED))

    /** The bundled model and any side-loaded ones; refreshed (off the main thread) at each load. */
    val modelNames: StateFlow<List<String>> = mutableModelNames.asStateFlow()

    fun send(question: String) {
        val text = question.trim()
        val before = mutableState.value
        if (text.isEmpty() || !before.canSend) return
        val turnId = nextTurnId++
        val history =
            before.turns
                .filter { it.status == AnswerStatus.DONE }
                .map { PromptAssembler.Exchange(it.question, it.answer) }
        dispatch(ChatEvent.QuestionAsked(turnId, text))
        answerJob =
            viewModelScope.launch(engineDispatcher) {
                try {
                    answer(turnId, text, history)
                } catch (e: CancellationException) {
                    dispatch(
                        ChatEvent.AnswerFinished(
                            turnId,
                            stopped = true,
                            tokens = currentTokens(turnId),
                            ttftMs = null,
                            tokensPerSecond = null,
                        ),
                    )
                    throw e
                } catch (e: LlmException) {
                    dispatch(ChatEvent.AnswerFailed(turnId, e.message ?: "the runtime failed"))
                }
            }
    }

    fun stopAnswer() {
        engine.stop()
        // Not in the native loop yet: cancel instead (if the loop starts meanwhile, its
        // first token callback sees the cancellation and stops it).
        if (!nativeRunning) answerJob?.cancel()
    }

    fun clearChat() {
        if (mutableState.value.isGenerating) return
        dispatch(ChatEvent.Cleared)
        // Behind any queued work on the engine thread, so it never races an answer.
        viewModelScope.launch(engineDispatcher) { engine.resetConversation() }
    }

    fun updateSettings(settings: ChatSettings) {
        val before = mutableState.value.settings
        dispatch(ChatEvent.SettingsChanged(settings))
        settingsStore.save(settings)
        if (settings.modelName != before.modelName || settings.threads != before.threads) load()
    }

    fun retryLoad() = load()

    override fun onCleared() {
        engine.stop()
        answerJob?.cancel()
        // Closing waits for the engine thread to finish its current step, so it runs there.
        engineExecutor.execute { engine.close() }
        engineExecutor.shutdown()
    }

    private fun dispatch(event: ChatEvent) = mutableState.update { ChatReducer.reduce(it, event) }

    private fun currentTokens(turnId: Long): Int =
        mutableState.value.turns
            .firstOrNull { it.id == turnId }
            ?.tokens ?: 0

    private fun threadsWanted(): Int {
        val chosen = mutableState.value.settings.threads
        val preferred = if (chosen > 0) chosen else LlmEngine.defaultThreads()
        return minOf(preferred, thermal.threads)
    }

    private fun load() {
        viewModelScope.launch(engineDispatcher) { loadNow() }
    }

    /** On the engine thread. Returns false after reporting the problem. */
    private fun loadNow(): Boolean {
        val name = mutableState.value.settings.modelName
        dispatch(ChatEvent.LoadProgress(LoadStage.PREPARING_FILES, 0f))
        mutableModelNames.value = modelFiles.available()
        val model =
            try {
                modelFiles.prepare(name) { dispatch(ChatEvent.LoadProgress(LoadStage.PREPARING_FILES, it)) }
            } catch (e: IOException) {
                dispatch(ChatEvent.LoadFailed(ModelProblem("The model file is missing", e.message ?: name)))
                return false
            }
        val runtime = LlmEngine.executorchVersion()
        val manifest = model.manifest?.let { runCatching { ModelManifest.fromJson(it.readText()) }.getOrNull() }
        val versionLines = manifest?.describe().orEmpty()
        val incompatible = manifest?.incompatibility(runtime)
        if (incompatible != null) {
            dispatch(ChatEvent.LoadFailed(ModelProblem("This model does not fit the app", incompatible, versionLines, runtime)))
            return false
        }
        dispatch(ChatEvent.LoadProgress(LoadStage.LOADING, 0f))
        val threads = threadsWanted()
        return try {
            val limits = engine.load(model.pte.path, model.tokenizer.path, threads = threads, warmup = true, program = model.location)
            loadedThreads = limits.threads
            dispatch(ChatEvent.LoadProgress(LoadStage.LOADING, 1f))
            dispatch(ChatEvent.Loaded(EngineStatus.Ready(name, limits.threads, limits.maxContextLen, limits.loadMs)))
            true
        } catch (e: ModelLoadException) {
            dispatch(ChatEvent.LoadFailed(ModelProblem("The model could not be loaded", e.message ?: "", versionLines, runtime)))
            false
        }
    }

    /** On the engine thread. */
    private suspend fun answer(
        turnId: Long,
        question: String,
        history: List<PromptAssembler.Exchange>,
    ) {
        if (thermal.pauseBeforeAnswerMs > 0) delay(thermal.pauseBeforeAnswerMs)
        // The thread count is fixed at load (XNNPACK binds the pool then): follow the
        // thermal policy by reloading between answers; the file stays mapped in the page cache.
        if (threadsWanted() != loadedThreads && !loadNow()) {
            dispatch(ChatEvent.AnswerFailed(turnId, "the model could not be reloaded"))
            return
        }
        val settings = mutableState.value.settings
        if (engine.limits == null) return dispatch(ChatEvent.AnswerFailed(turnId, "no model is loaded"))
        val prompt = assembler.assemble(history = history, question = question, passages = contextProvider.retrieve(question))
        val job = currentCoroutineContext().job
        nativeRunning = true
        val stats =
            try {
                engine.generate(
                    prompt,
                    GenerationParams(
                        maxNewTokens = settings.maxNewTokens,
                        temperature = settings.temperature,
                        seed = turnId,
                        contextPolicy = settings.contextPolicy,
                        speculative = settings.speculative,
                    ),
                ) {
                    // Throws CancellationException into the native loop, which stops there.
                    job.ensureActive()
                    dispatch(ChatEvent.TokenStreamed(turnId, it.text))
                }
            } finally {
                nativeRunning = false
            }
        dispatch(
            ChatEvent.AnswerFinished(
                turnId,
                stopped = stats.stopped,
                tokens = stats.generatedTokens,
                ttftMs = stats.ttftMs,
                tokensPerSecond = stats.decodeTokensPerSecond,
                droppedTurns = stats.droppedTurns,
                reusedTokens = stats.reusedTokens,
            ),
        )
    }

    /** On the main thread; takes effect from the next answer. */
    private fun onThermalReading(reading: ThermalReading) {
        thermal = thermalPolicy.decide(reading, thermal)
        dispatch(ChatEvent.ThermalNotice(thermal.notice))
    }
}
