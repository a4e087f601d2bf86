// A conversation's hold on the KV cache: which tokens the cache holds, in
// order, so that the next turn prefills only what is new.
//
//   auto session = LlmSession::Create(options, &error);
//   session->Prefill(turn_1_ids, &stats, &error);    // prefills all of it
//   session->Generate(config, on_token, &stats, &error);
//   session->Prefill(turn_1_and_2_ids, &stats, &error);
//   // ... prefills only what follows the cached prefix: stats.reused_tokens
//
// Prefill takes the whole conversation, not a delta: the session keeps the
// longest prefix the cache already holds and feeds the rest. That also covers
// edits (a regenerated reply, turns dropped by the context policy): they
// simply share a shorter prefix. The cache rows past the kept prefix are
// overwritten before attention can read them, since attention at position p
// only reads rows [0, p].
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/llm_runner.h"

namespace llm {

class LlmSession {
 public:
  static std::unique_ptr<LlmSession> Create(const RunnerOptions& options,
                                            std::string* error);
  explicit LlmSession(std::unique_ptr<LlmRunner> runner);

  // Makes the cache hold `conversation`, feeding only the tokens after the
  // prefix it already holds (at least the last token, whose logits the
  // reply starts from). Starts stats for this turn: prompt_tokens,
  // reused_tokens, prefilled_tokens, prefill_ms. The conversation must leave
  // room for the first reply token: at most max_context_len - 1 tokens.
  bool Prefill(const std::vector<int64_t>& conversation, GenerationStats* stats,
               std::string* error);

  // Feeds `tokens` after what the cache holds (the newest turn's delta).
  bool Append(const std::vector<int64_t>& tokens, GenerationStats* stats,
              std::string* error);

  // Continues from the current position: samples the reply from the last fed
  // token's logits and decodes. The reply's tokens join the history (all but
  // the last sampled one, which was never fed). Completes `stats`.
  bool Generate(const GenerationConfig& config, const TokenCallback& on_token,
                GenerationStats* stats, std::string* error);

  // A new conversation: nothing in the cache is reused.
  void Reset();

  // The tokens whose keys and values the cache holds, position 0 first.
  const std::vector<int64_t>& tokens() const { return tokens_; }
  int64_t position() const { return static_cast<int64_t>(tokens_.size()); }
  const LlmRunner& runner() const { return *runner_; }

 private:
  bool Feed(const std::vector<int64_t>& tokens, size_t from,
            GenerationStats* stats, std::string* error);

  std::unique_ptr<LlmRunner> runner_;
  // Capacity reserved for the whole context at creation, so appending the
  // tokens of a reply never allocates while decoding.
  std::vector<int64_t> tokens_;
  // The logits after tokens_.back(), or null when a reply was already
  // sampled from them (Generate needs a new turn first).
  const float* logits_ = nullptr;
};

}  // namespace llm
