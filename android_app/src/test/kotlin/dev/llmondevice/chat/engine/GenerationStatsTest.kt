package dev.llmondevice.chat.engine

import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertFailsWith
import kotlin.test.assertTrue

class GenerationStatsTest {
    // The shape GenerationStats::ToJson (runtime/generation_stats.cc) writes.
    private val json =
        """
        {
          "model_sha256": "",
          "platform": "linux-x86_64",
          "threads": 2,
          "load_ms": 243.888,
          "integrity": "verified",
          "integrity_ms": 80.125,
          "warmup_ms": 0.000,
          "ttft_ms": 38.439,
          "prompt_tokens": 37,
          "truncated_prompt_tokens": 0,
          "reused_tokens": 30,
          "prefilled_tokens": 7,
          "dropped_turns": 1,
          "generated_tokens": 51,
          "prefill_ms": 38.439,
          "prefill_tokens_per_s": 962.553,
          "decode_ms": 209.507,
          "decode_tokens_per_s": 238.656,
          "token_latency_p50_ms": 4.206,
          "token_latency_p95_ms": 4.599,
          "peak_rss_mb": 99.891,
          "token_latency_ms": [4.1, 4.2],
          "decode_allocations": null,
          "stop_reason": "callback"
        }
        """.trimIndent()

    @Test
    fun readsTheRuntimesStats() {
        val stats = GenerationStats.fromJson(json)
        assertEquals("linux-x86_64", stats.platform)
        assertEquals(2, stats.threads)
        assertEquals(38.439, stats.ttftMs)
        assertEquals(30, stats.reusedTokens)
        assertEquals(7, stats.prefilledTokens)
        assertEquals(1, stats.droppedTurns)
        assertEquals("verified", stats.integrity)
        assertEquals(37, stats.promptTokens)
        assertEquals(51, stats.generatedTokens)
        assertEquals(238.656, stats.decodeTokensPerSecond)
        assertEquals(listOf(4.1, 4.2), stats.tokenLatencyMs)
        assertTrue(stats.stopped)
    }

    @Test
    fun missingFieldsAreAnError() {
        assertFailsWith<IllegalArgumentException> { GenerationStats.fromJson("""{"threads": 2}""") }
    }

    @Test
    fun paramsAreChecked() {
        assertFailsWith<IllegalArgumentException> { GenerationParams(maxNewTokens = 0) }
        assertFailsWith<IllegalArgumentException> { GenerationParams(temperature = -1f) }
        assertFailsWith<IllegalArgumentException> { GenerationParams(topP = 0f) }
    }
}
