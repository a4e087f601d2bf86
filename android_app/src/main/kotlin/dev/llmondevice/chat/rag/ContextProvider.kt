package dev.llmondevice.chat.rag

/**
 * The RAG seam: finds passages relevant to a question before the prompt is assembled.
 *
 * The app calls [retrieve] on the engine's background thread, once per question, and
 * hands the result to [PromptAssembler]. The default, [NoContext], retrieves nothing,
 * and the prompt is then exactly the conversation. The local-RAG work plugs in here: an
 * implementation backed by the runtime's C++ retrieval (over JNI, like LlmEngine),
 * selected in ChatViewModel's constructor, with no change to the UI or the engine.
 */
fun interface ContextProvider {
    fun retrieve(question: String): List<Passage>
}

/** No retrieval: the model answers from the conversation alone. */
object NoContext : ContextProvider {
    override fun retrieve(question: String): List<Passage> = emptyList()
}
