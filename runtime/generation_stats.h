// Figures from one generation, in the shape of ExecuTorch's llama runner
// stats, written as JSON by llm_main --stats_json and read by //bench.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace llm {

struct GenerationStats {
  std::string model_sha256;
  std::string platform;  // e.g. linux-x86_64, linux-aarch64, android-aarch64
  uint32_t threads = 0;
  double load_ms = 0;    // mmap + verify + method load (+ warm-up if asked)
  double warmup_ms = 0;  // the one-token dummy inference, 0 if not run
  double ttft_ms = 0;    // prompt in -> first token sampled
  double prefill_ms = 0;
  double decode_ms = 0;
  int64_t prompt_tokens = 0;
  int64_t generated_tokens = 0;
  int64_t truncated_prompt_tokens = 0;  // dropped by --truncate_prompt
  // A conversation turn (LlmSession): tokens the KV cache already held and
  // was reused for, and tokens this turn had to prefill. A single prompt
  // prefills all of them.
  int64_t reused_tokens = 0;
  int64_t prefilled_tokens = 0;
  // Graph executions that prefilled them: one per chunk of max_seq_len (a
  // program's prefill method's length), or one per token where a chunk
  // cannot run whole (a one-token program, the end of the context).
  int64_t prefill_calls = 0;
  // Whole earlier turns left out so the conversation fits the context
  // (context policy drop_oldest_turns).
  int64_t dropped_turns = 0;
  // The load-time check against the manifest: verified, no_manifest, skipped.
  std::string integrity;
  double integrity_ms = 0;
  std::vector<double> token_ms;  // per decode step (forward + sample)
  double peak_rss_mb = 0;
  // Heap allocations made by decode steps (forward + sample, after the first
  // decode step); -1 when the platform cannot count them.
  int64_t decode_allocations = -1;
  std::string stop_reason;  // eos, max_new_tokens, context_full, callback
  // Speculative decoding: what ran ("off", "prompt_lookup", "draft", or
  // "off (why)"), the decode steps' graph executions, the calls that verified a
  // draft, the draft tokens proposed and accepted, the governor's pauses, and
  // the draft program's own forward calls (draft mode).
  std::string speculation = "off";
  int64_t forward_calls = 0;
  int64_t draft_calls = 0;
  int64_t drafted_tokens = 0;
  int64_t accepted_tokens = 0;
  int64_t speculation_pauses = 0;
  int64_t draft_model_calls = 0;

  double PrefillTokensPerSecond() const;
  double DecodeTokensPerSecond() const;
  // Accepted over proposed draft tokens, and accepted per verify call; 0
  // without drafts.
  double AcceptanceRate() const;
  double MeanAcceptedLength() const;
  // Percentile of token_ms (nearest rank), 0 when empty.
  double TokenLatencyPercentile(double percentile) const;
  // Pretty-printed, or one line (JSON Lines, one record per turn).
  std::string ToJson(bool one_line = false) const;
};

// Peak resident set size of this process so far, in MiB.
double PeakRssMb();

// "linux-x86_64" etc., from compile-time target macros.
std::string PlatformName();

}  // namespace llm
