package dev.llmondevice.chat.engine

import dev.llmondevice.chat.json.Json

/** The runtime's figures for one answer (its stats JSON, as `llm_main --stats_json` writes it). */
data class GenerationStats(
    val platform: String,
    val threads: Int,
    val loadMs: Double,
    val warmupMs: Double,
    /** Prompt in to first token sampled. */
    val ttftMs: Double,
    val promptTokens: Int,
    val generatedTokens: Int,
    val prefillTokensPerSecond: Double,
    val decodeTokensPerSecond: Double,
    val tokenLatencyP50Ms: Double,
    val tokenLatencyP95Ms: Double,
    val peakRssMb: Double,
    /** Each decode step's time (forward + sample), in order. */
    val tokenLatencyMs: List<Double>,
    /** eos, max_new_tokens, context_full or callback (stopped). */
    val stopReason: String,
    /** Prompt tokens the KV cache already held from earlier turns, and those prefilled now. */
    val reusedTokens: Int = 0,
    val prefilledTokens: Int = promptTokens,
    /** Earlier turns left out so the conversation fits (ContextPolicy.DROP_OLDEST_TURNS). */
    val droppedTurns: Int = 0,
    /** The load-time check against the manifest: verified, no_manifest or skipped. */
    val integrity: String = "",
    /** What decoding did: "off", "prompt_lookup", or "off (why)" when it was asked for and could not run. */
    val speculation: String = "off",
    /** Draft tokens proposed and accepted (prompt lookup). */
    val draftedTokens: Int = 0,
    val acceptedTokens: Int = 0,
) {
    val stopped: Boolean get() = stopReason == "callback"

    companion object {
        fun fromJson(json: String): GenerationStats {
            val fields = Json.parseObject(json)

            fun number(name: String): Double = fields[name] as? Double ?: throw IllegalArgumentException("stats JSON: no number '$name'")

            return GenerationStats(
                platform = fields["platform"] as? String ?: "",
                threads = number("threads").toInt(),
                loadMs = number("load_ms"),
                warmupMs = number("warmup_ms"),
                ttftMs = number("ttft_ms"),
                promptTokens = number("prompt_tokens").toInt(),
                generatedTokens = number("generated_tokens").toInt(),
                prefillTokensPerSecond = number("prefill_tokens_per_s"),
                decodeTokensPerSecond = number("decode_tokens_per_s"),
                tokenLatencyP50Ms = number("token_latency_p50_ms"),
                tokenLatencyP95Ms = number("token_latency_p95_ms"),
                peakRssMb = number("peak_rss_mb"),
                tokenLatencyMs = (fields["token_latency_ms"] as? List<*>).orEmpty().filterIsInstance<Double>(),
                stopReason = fields["stop_reason"] as? String ?: "",
                reusedTokens = number("reused_tokens").toInt(),
                prefilledTokens = number("prefilled_tokens").toInt(),
                droppedTurns = number("dropped_turns").toInt(),
                integrity = fields["integrity"] as? String ?: "",
                speculation = fields["speculation"] as? String ?: "off",
                draftedTokens = (fields["drafted_tokens"] as? Double)?.toInt() ?: 0,
                acceptedTokens = (fields["accepted_tokens"] as? Double)?.toInt() ?: 0,
            )
        }
    }
}
