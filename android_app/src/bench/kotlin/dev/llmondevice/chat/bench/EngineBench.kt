package dev.llmondevice.chat.bench

import dev.llmondevice.chat.engine.ChatMessage
import dev.llmondevice.chat.engine.GenerationParams
import dev.llmondevice.chat.engine.GenerationStats
import dev.llmondevice.chat.engine.LlmEngine
import dev.llmondevice.chat.json.Json
import java.io.File
import java.util.Locale
import java.util.concurrent.TimeUnit

/**
 * `bazel run //android_app:engine_bench`: the app's LlmEngine (JNI, host build) against
 * llm_main on the same program, question, answer length and threads, in alternating
 * rounds. Prints medians of the runtime's own TTFT and decode speed, and what
 * streaming a token into Kotlin costs on top of its decode step.
 *
 *   --runs=5 --max_new_tokens=64 --threads=N (default: half the cores)
 */
fun main(args: Array<String>) {
    val flags = args.associate { it.removePrefix("--").substringBefore('=') to it.substringAfter('=', "") }
    val runs = flags["runs"]?.toInt() ?: 5
    val maxNewTokens = flags["max_new_tokens"]?.toInt() ?: 64
    val threads = flags["threads"]?.toInt() ?: LlmEngine.defaultThreads()
    val pte = File(System.getProperty("bench.pte")).absolutePath
    val tokenizer = File(System.getProperty("bench.tokenizer")).absolutePath
    val llmMain = File(System.getProperty("bench.llm_main")).absolutePath
    val question = "Write a long story about a dragon who learns to read."

    val engine = LlmEngine()
    val limits = engine.load(pte, tokenizer, threads = threads, warmup = true)
    val params = GenerationParams(maxNewTokens = maxNewTokens)
    val prompt = listOf(ChatMessage(ChatMessage.Role.USER, question))
    engine.generate(prompt, params) {}

    val jni = mutableListOf<GenerationStats>()
    val overheadMs = mutableListOf<Double>()
    val cli = mutableListOf<Map<String, Any?>>()
    repeat(runs) {
        val arrivals = ArrayList<Long>(maxNewTokens)
        val stats = engine.generate(prompt, params) { arrivals += System.nanoTime() }
        jni += stats
        // Between two tokens reaching Kotlin lie one decode step (which the runtime
        // times) and one trip through the bridge: callback, UTF-8 to UTF-16, JNI.
        for (step in 0 until minOf(arrivals.size - 1, stats.tokenLatencyMs.size)) {
            overheadMs += (arrivals[step + 1] - arrivals[step]) / 1e6 - stats.tokenLatencyMs[step]
        }
        cli += runLlmMain(llmMain, pte, tokenizer, question, maxNewTokens, threads)
    }
    engine.close()

    fun median(values: List<Double>): Double = values.sorted()[values.size / 2]

    fun cliMedian(key: String): Double = median(cli.map { it[key] as Double })
    println("program: ${File(pte).name} (load ${fmt(limits.loadMs)} ms incl. warm-up ${fmt(limits.warmupMs)} ms), threads $threads")
    println("question: \"$question\", up to $maxNewTokens new tokens, greedy, $runs rounds (medians)")
    println("| runner | TTFT ms | decode tok/s | tokens |")
    println("|---|---|---|---|")
    println(
        "| LlmEngine (JNI) | ${fmt(median(jni.map { it.ttftMs }))} | ${fmt(median(jni.map { it.decodeTokensPerSecond }))} | " +
            "${jni.first().generatedTokens} |",
    )
    println(
        "| llm_main | ${fmt(cliMedian("ttft_ms"))} | ${fmt(cliMedian("decode_tokens_per_s"))} | " +
            "${(cli.first()["generated_tokens"] as Double).toInt()} |",
    )
    println(
        "JNI streaming cost per token (median of ${overheadMs.size}): ${String.format(Locale.ROOT, "%.1f", median(overheadMs) * 1000)} µs",
    )
}

private fun fmt(value: Double) = String.format(Locale.ROOT, "%.1f", value)

private fun runLlmMain(
    llmMain: String,
    pte: String,
    tokenizer: String,
    question: String,
    maxNewTokens: Int,
    threads: Int,
): Map<String, Any?> {
    val dir = File(System.getenv("TMPDIR") ?: "/tmp")
    val promptFile = File.createTempFile("bench_prompt", ".txt", dir).apply { writeText(question, Charsets.UTF_8) }
    val statsFile = File.createTempFile("bench_stats", ".json", dir)
    try {
        val process =
            ProcessBuilder(
                llmMain,
                "--model=$pte",
                "--tokenizer=$tokenizer",
                "--prompt_file=${promptFile.path}",
                "--max_new_tokens=$maxNewTokens",
                "--threads=$threads",
                "--warmup",
                "--stats_json=${statsFile.path}",
            ).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.INHERIT)
                .start()
        check(process.waitFor(300, TimeUnit.SECONDS) && process.exitValue() == 0) { "llm_main failed" }
        return Json.parseObject(statsFile.readText())
    } finally {
        promptFile.delete()
        statsFile.delete()
    }
}
