package dev.llmondevice.chat.engine

import dev.llmondevice.chat.engine.ChatMessage.Role
import dev.llmondevice.chat.model.ModelManifest
import java.io.File
import java.util.concurrent.CountDownLatch
import java.util.concurrent.TimeUnit
import java.util.concurrent.atomic.AtomicInteger
import kotlin.test.AfterTest
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertNotNull
import kotlin.test.assertTrue

/**
 * The app's LlmEngine over the real JNI bridge (libllm_engine_jni.so built for the host)
 * on the real int4 SmolLM2 program, checked against llm_main on the same inputs.
 */
class LlmEngineJvmTest {
    private val pte = property("test.pte")
    private val tokenizer = property("test.tokenizer")
    private val llmMain = property("test.llm_main")
    private val threads = 2
    private val engine = LlmEngine()

    @AfterTest
    fun close() = engine.close()

    private fun property(name: String): String =
        File(assertNotNull(System.getProperty(name), "-D$name is not set (see android_app/BUILD.bazel)")).absolutePath

    private data class Reply(
        val ids: List<Long>,
        val text: String,
        val stats: GenerationStats,
    )

    private fun generate(
        question: String,
        maxNewTokens: Int,
        speculative: Boolean = false,
        onToken: (StreamedToken) -> Unit = {},
    ): Reply {
        val ids = mutableListOf<Long>()
        val text = StringBuilder()
        val params = GenerationParams(maxNewTokens = maxNewTokens, speculative = speculative)
        val stats =
            engine.generate(listOf(ChatMessage(Role.USER, question)), params) {
                ids.add(it.id)
                text.append(it.text)
                onToken(it)
            }
        return Reply(ids, text.toString(), stats)
    }

    private fun llmMain(
        question: String,
        maxNewTokens: Int,
        vararg flags: String,
    ): String {
        // A file, not --prompt: the JVM encodes arguments in the locale's charset, which is
        // ASCII under Bazel, and would turn "café" into "caf?".
        val promptFile = File.createTempFile("prompt", ".txt", File(System.getenv("TEST_TMPDIR") ?: "/tmp"))
        promptFile.writeText(question, Charsets.UTF_8)
        val process =
            ProcessBuilder(
                listOf(
                    llmMain,
                    "--model=$pte",
                    "--tokenizer=$tokenizer",
                    "--prompt_file=${promptFile.absolutePath}",
                    "--max_new_tokens=$maxNewTokens",
                    "--threads=$threads",
                ) + flags,
            ).redirectError(ProcessBuilder.Redirect.INHERIT).start()
        val output = process.inputStream.readBytes().toString(Charsets.UTF_8)
        assertTrue(process.waitFor(300, TimeUnit.SECONDS), "llm_main timed out")
        assertEquals(0, process.exitValue(), "llm_main failed")
        // llm_main ends its output with one newline.
        return output.removeSuffix("\n")
    }

    private fun llmMainIds(
        question: String,
        maxNewTokens: Int,
    ): List<Long> = llmMain(question, maxNewTokens, "--print_ids").split(" ").filter { it.isNotEmpty() }.map { it.toLong() }

    private fun load() = engine.load(pte, tokenizer, threads = threads, warmup = true)

    @Test
    fun streamsTheSameTokensAndTextAsLlmMain() {
        val limits = load()
        val manifest = ModelManifest.fromJson(File(property("test.manifest")).readText())
        // The program's own figure (the exporter stores one less than its config's).
        assertTrue(limits.maxSeqLen in 1..manifest.maxSeqLen.toLong(), "max_seq_len ${limits.maxSeqLen}")
        assertEquals(manifest.maxContextLen.toLong(), limits.maxContextLen)
        assertEquals(threads, limits.threads)
        assertTrue(limits.warmupMs > 0, "the one-token warm-up ran")
        assertEquals(manifest.executorchVersion, LlmEngine.executorchVersion())

        val question = "Write a short poem about the sea."
        val order = mutableListOf<Int>()
        val reply = generate(question, 24) { order.add(order.size) }
        assertEquals(24, reply.ids.size, "greedy 24 tokens: ${reply.text}")
        assertEquals(llmMainIds(question, 24), reply.ids)
        assertEquals(llmMain(question, 24), reply.text)
        assertEquals((0 until 24).toList(), order)
        assertEquals("max_new_tokens", reply.stats.stopReason)
        assertEquals(24, reply.stats.generatedTokens)
        assertEquals(threads, reply.stats.threads)
        assertTrue(reply.stats.ttftMs > 0 && reply.stats.decodeTokensPerSecond > 0)
        assertEquals(reply.stats, engine.stats())
    }

    @Test
    fun emojiAndAccentsCrossTheBridgeIntact() {
        load()
        val question = "Translate to French: I love the café 😀"
        val reply = generate(question, 12)
        assertEquals(llmMainIds(question, 12), reply.ids)
        assertEquals(llmMain(question, 12), reply.text)
    }

    @Test
    fun stopFromAnotherThreadEndsWithinOneTokenAndTheEngineStaysUsable() {
        load()
        val question = "Tell me a long story about a dragon."
        val full = generate(question, 32)
        assertEquals(32, full.ids.size)

        val reachedFifth = CountDownLatch(1)
        val seenAtStop = AtomicInteger(-1)
        val seen = AtomicInteger(0)
        val stopper =
            Thread {
                reachedFifth.await()
                engine.stop()
                seenAtStop.set(seen.get())
            }
        stopper.start()
        val stopped =
            generate(question, 32) {
                if (seen.incrementAndGet() == 5) reachedFifth.countDown()
            }
        stopper.join()
        assertEquals("callback", stopped.stats.stopReason)
        assertTrue(seenAtStop.get() >= 5)
        assertTrue(
            stopped.ids.size <= seenAtStop.get() + 1,
            "${stopped.ids.size} tokens arrived; stop() returned after ${seenAtStop.get()}",
        )
        assertEquals(full.ids.subList(0, stopped.ids.size), stopped.ids, "the stopped stream is a prefix of the full one")

        // The next answer starts from a clean cache: the same tokens again.
        assertEquals(full.ids, generate(question, 32).ids)
    }

    @Test
    fun theSpeculativeSettingReachesTheRuntimeAndKeepsTheAnswer() {
        load()
        val question = "Repeat after me: the cat sat on the mat, the cat sat on the mat."
        val plain = generate(question, 24)
        val asked = generate(question, 24, speculative = true)
        assertEquals(plain.ids, asked.ids)
        assertEquals("off", plain.stats.speculation)
        // Whether drafts are accepted depends on the weights (the tiny fixtures' are random);
        // //runtime:speculative_program_test measures that on SmolLM2.
        assertEquals("prompt_lookup", asked.stats.speculation)
    }

    @Test
    fun anExceptionInTheCallbackStopsAndReachesTheCaller() {
        load()
        var calls = 0
        val error =
            assertFailsWith<IllegalStateException> {
                generate("Count to ten.", 32) {
                    calls++
                    if (calls == 3) throw IllegalStateException("the UI went away")
                }
            }
        assertEquals("the UI went away", error.message)
        assertEquals(3, calls)
        assertEquals(4, generate("Count to ten.", 4).ids.size)
    }

    @Test
    fun badFilesAndPromptsBecomeExceptionsWithTheRuntimesMessage() {
        val missing = File(System.getenv("TEST_TMPDIR") ?: "/tmp", "no_such_model.pte").absolutePath
        val notFound = assertFailsWith<ModelLoadException> { engine.load(missing, tokenizer) }
        assertTrue(notFound.message!!.contains(missing), notFound.message)

        val noTokenizer = assertFailsWith<ModelLoadException> { engine.load(pte, "$missing.tok") }
        assertTrue(noTokenizer.message!!.contains("$missing.tok"), noTokenizer.message)

        val truncated = File(System.getenv("TEST_TMPDIR") ?: "/tmp", "truncated.pte")
        File(pte).inputStream().use { input -> truncated.writeBytes(input.readNBytes(1 shl 20)) }
        val corrupt = assertFailsWith<ModelLoadException> { engine.load(truncated.absolutePath, tokenizer) }
        assertTrue(corrupt.message!!.contains(truncated.absolutePath), corrupt.message)

        assertFailsWith<IllegalStateException> { generate("hi", 4) }

        val limits = load()
        val tooLong = "word ".repeat(limits.maxContextLen.toInt() + 10)
        val error = assertFailsWith<LlmException> { generate(tooLong, 4) }
        assertTrue(error.message!!.contains("context is ${limits.maxContextLen}"), error.message)
        assertEquals(4, generate("hi", 4).ids.size, "usable after an error")
    }

    private fun ask(
        conversation: List<ChatMessage>,
        maxNewTokens: Int,
    ): Reply {
        val ids = mutableListOf<Long>()
        val text = StringBuilder()
        val stats =
            engine.generate(conversation, GenerationParams(maxNewTokens = maxNewTokens)) {
                ids.add(it.id)
                text.append(it.text)
            }
        return Reply(ids, text.toString(), stats)
    }

    @Test
    fun aThreeTurnConversationPrefillsOnlyEachNewTurn() {
        load()
        val conversation = mutableListOf<ChatMessage>()
        val replies = mutableListOf<Reply>()
        for (question in listOf("What is the capital of France?", "What river runs through it?", "Name a museum there.")) {
            conversation += ChatMessage(Role.USER, question)
            val reply = ask(conversation, 16)
            replies += reply
            conversation += ChatMessage(Role.ASSISTANT, reply.text)
        }
        assertEquals(0, replies[0].stats.reusedTokens)
        assertEquals(replies[0].stats.promptTokens, replies[0].stats.prefilledTokens)
        for (turn in 1..2) {
            val stats = replies[turn].stats
            assertTrue(
                stats.reusedTokens >= replies[turn - 1].stats.promptTokens,
                "turn ${turn + 1} reused ${stats.reusedTokens} of ${stats.promptTokens} tokens",
            )
            assertTrue(stats.prefilledTokens < 40, "turn ${turn + 1} prefilled ${stats.prefilledTokens} tokens")
            assertEquals(stats.promptTokens, stats.reusedTokens + stats.prefilledTokens)
        }

        // A new chat: nothing is reused.
        engine.resetConversation()
        val fresh = ask(conversation.subList(0, 5), 16)
        assertEquals(0, fresh.stats.reusedTokens)
        assertEquals(replies[2].stats.promptTokens, fresh.stats.promptTokens)
    }

    private fun tempFile(name: String) = File(System.getenv("TEST_TMPDIR") ?: "/tmp", name)

    @Test
    fun aProgramInsideALargerFileIsMappedInPlace() {
        // As the app maps its uncompressed APK asset: an offset that is 16-aligned, as
        // ExecuTorch needs, but not page-aligned.
        val offset = 4112L
        val size = File(pte).length()
        val container = tempFile("container.bin")
        container.outputStream().use { out ->
            out.write(ByteArray(offset.toInt()) { 0x5a })
            File(pte).inputStream().use { it.copyTo(out) }
            out.write(ByteArray(100) { 0x7f })
        }
        val manifest = property("test.manifest")
        val question = "What is the capital of France?"
        load()
        val plain = generate(question, 8)
        engine.load(container.absolutePath, tokenizer, threads = threads, program = ProgramLocation(offset, size, manifest))
        val mapped = generate(question, 8)
        assertEquals(plain.ids, mapped.ids)
        assertEquals("verified", mapped.stats.integrity)

        val cut = ProgramLocation(offset, size + 1, manifest)
        val error = assertFailsWith<ModelLoadException> { engine.load(container.absolutePath, tokenizer, program = cut) }
        assertTrue(error.message!!.contains("but its manifest"), error.message)
        val unaligned = ProgramLocation(offset + 4, size, "")
        val misplaced = assertFailsWith<ModelLoadException> { engine.load(container.absolutePath, tokenizer, program = unaligned) }
        assertTrue(misplaced.message!!.contains("not a multiple of 16"), misplaced.message)
    }

    @Test
    fun aDamagedProgramIsRefusedWithBothHashes() {
        val damaged = tempFile("damaged.pte")
        File(pte).copyTo(damaged, overwrite = true)
        val manifestFile = File(property("test.manifest"))
        manifestFile.copyTo(tempFile("damaged.manifest.json"), overwrite = true)
        val expected = ModelManifest.fromJson(manifestFile.readText()).sha256
        java.io.RandomAccessFile(damaged, "rw").use { file ->
            file.seek(file.length() / 2)
            val bytes = ByteArray(64)
            file.readFully(bytes)
            file.seek(file.length() / 2)
            file.write(ByteArray(64) { (bytes[it].toInt() xor 0xff).toByte() })
        }
        val error = assertFailsWith<ModelLoadException> { engine.load(damaged.absolutePath, tokenizer) }
        assertTrue(error.message!!.contains(expected), error.message)
        assertTrue(error.message!!.contains("its sha256 is "), error.message)
        assertEquals("verified", load().let { generate("hi", 2).stats.integrity })
    }
}
