#include "runtime/generation_stats.h"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace llm {

double GenerationStats::PrefillTokensPerSecond() const {
  return prefill_ms > 0 ? prompt_tokens * 1000.0 / prefill_ms : 0;
}

double GenerationStats::DecodeTokensPerSecond() const {
  // The first generated token comes from prefill; decode makes the rest.
  const int64_t decoded = static_cast<int64_t>(token_ms.size());
  return decode_ms > 0 ? decoded * 1000.0 / decode_ms : 0;
}

double GenerationStats::AcceptanceRate() const {
  return drafted_tokens > 0
             ? static_cast<double>(accepted_tokens) / drafted_tokens
             : 0;
}

double GenerationStats::MeanAcceptedLength() const {
  return draft_calls > 0 ? static_cast<double>(accepted_tokens) / draft_calls
                         : 0;
}

double GenerationStats::TokenLatencyPercentile(double percentile) const {
  if (token_ms.empty()) return 0;
  std::vector<double> sorted = token_ms;
  std::sort(sorted.begin(), sorted.end());
  const size_t rank = static_cast<size_t>(
      std::ceil(percentile / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::min(sorted.size() - 1, rank == 0 ? 0 : rank - 1)];
}

namespace {

std::string Number(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3f", value);
  return text;
}

std::string Quoted(const std::string& value) {
  std::string out = "\"";
  for (char c : value) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

}  // namespace

std::string GenerationStats::ToJson(bool one_line) const {
  std::string json = one_line ? "{" : "{\n";
  auto field = [&](const char* name, const std::string& value,
                   bool last = false) {
    json += (one_line ? "\"" : "  \"") + std::string(name) + "\": " + value;
    if (!last) json += one_line ? ", " : ",\n";
  };
  field("model_sha256", Quoted(model_sha256));
  field("platform", Quoted(platform));
  field("threads", std::to_string(threads));
  field("load_ms", Number(load_ms));
  field("integrity", Quoted(integrity));
  field("integrity_ms", Number(integrity_ms));
  field("warmup_ms", Number(warmup_ms));
  field("ttft_ms", Number(ttft_ms));
  field("prompt_tokens", std::to_string(prompt_tokens));
  field("truncated_prompt_tokens", std::to_string(truncated_prompt_tokens));
  field("reused_tokens", std::to_string(reused_tokens));
  field("prefilled_tokens", std::to_string(prefilled_tokens));
  field("prefill_calls", std::to_string(prefill_calls));
  field("dropped_turns", std::to_string(dropped_turns));
  field("generated_tokens", std::to_string(generated_tokens));
  field("prefill_ms", Number(prefill_ms));
  field("prefill_tokens_per_s", Number(PrefillTokensPerSecond()));
  field("decode_ms", Number(decode_ms));
  field("decode_tokens_per_s", Number(DecodeTokensPerSecond()));
  field("token_latency_p50_ms", Number(TokenLatencyPercentile(50)));
  field("token_latency_p95_ms", Number(TokenLatencyPercentile(95)));
  field("peak_rss_mb", Number(peak_rss_mb));
  std::string series = "[";
  for (size_t i = 0; i < token_ms.size(); ++i) {
    series += (i ? ", " : "") + Number(token_ms[i]);
  }
  field("token_latency_ms", series + "]");
  field("decode_allocations",
        decode_allocations < 0 ? "null" : std::to_string(decode_allocations));
  field("speculation", Quoted(speculation));
  field("forward_calls", std::to_string(forward_calls));
  field("draft_calls", std::to_string(draft_calls));
  field("drafted_tokens", std::to_string(drafted_tokens));
  field("accepted_tokens", std::to_string(accepted_tokens));
  field("acceptance_rate", Number(AcceptanceRate()));
  field("mean_accepted_length", Number(MeanAcceptedLength()));
  field("speculation_pauses", std::to_string(speculation_pauses));
  field("draft_model_calls", std::to_string(draft_model_calls));
  field("stop_reason", Quoted(stop_reason), true);
  return json + (one_line ? "}\n" : "\n}\n");
}

double PeakRssMb() {
  struct rusage usage {};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_maxrss) / 1024.0;  // KiB on Linux
}

std::string PlatformName() {
#if defined(__ANDROID__)
  std::string os = "android";
#elif defined(__linux__)
  std::string os = "linux";
#else
  std::string os = "unknown";
#endif
#if defined(__aarch64__)
  return os + "-aarch64";
#elif defined(__x86_64__)
  return os + "-x86_64";
#else
  return os + "-unknown";
#endif
}

}  // namespace llm
