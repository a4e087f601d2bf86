#include "runtime/session/llm_session.h"

#include <algorithm>
#include <chrono>
#include <utility>

namespace llm {
namespace {

double MsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now() - start)
      .count();
}

}  // namespace

std::unique_ptr<LlmSession> LlmSession::Create(const RunnerOptions& options,
                                               std::string* error) {
  std::unique_ptr<LlmRunner> runner = LlmRunner::Create(options, error);
  if (!runner) return nullptr;
  return std::make_unique<LlmSession>(std::move(runner));
}

LlmSession::LlmSession(std::unique_ptr<LlmRunner> runner)
    : runner_(std::move(runner)) {
  tokens_.reserve(static_cast<size_t>(runner_->limits().max_context_len));
}

void LlmSession::Reset() {
  tokens_.clear();
  logits_ = nullptr;
}

bool LlmSession::Prefill(const std::vector<int64_t>& conversation,
                         GenerationStats* stats, std::string* error) {
  const auto common = static_cast<size_t>(
      std::mismatch(tokens_.begin(), tokens_.end(), conversation.begin(),
                    conversation.end())
          .first -
      tokens_.begin());
  // The last token is fed again if needed: its logits start the reply.
  const size_t keep = std::min(
      common, conversation.empty() ? size_t{0} : conversation.size() - 1);
  return Feed(conversation, keep, stats, error);
}

bool LlmSession::Append(const std::vector<int64_t>& tokens,
                        GenerationStats* stats, std::string* error) {
  std::vector<int64_t> conversation = tokens_;
  conversation.insert(conversation.end(), tokens.begin(), tokens.end());
  if (tokens.empty()) {
    runner_->BeginStats(stats);
    *error = "nothing to append: give at least one token";
    return false;
  }
  return Feed(conversation, tokens_.size(), stats, error);
}

bool LlmSession::Feed(const std::vector<int64_t>& conversation, size_t from,
                      GenerationStats* stats, std::string* error) {
  const ProgramLimits& limits = runner_->limits();
  runner_->BeginStats(stats);
  const auto n = static_cast<int64_t>(conversation.size());
  if (n == 0) {
    *error = "the conversation is empty: give at least one token";
    return false;
  }
  if (n >= limits.max_context_len) {
    *error = "the conversation is " + std::to_string(n) +
             " tokens but the model's context is " +
             std::to_string(limits.max_context_len) +
             " (including the reply): " +
             std::to_string(n + 1 - limits.max_context_len) +
             " tokens over; start a new conversation or drop older turns";
    return false;
  }
  *error = runner_->CheckTokens(conversation, "conversation");
  if (!error->empty()) return false;
  stats->prompt_tokens = n;
  stats->reused_tokens = static_cast<int64_t>(from);
  stats->prefilled_tokens = n - static_cast<int64_t>(from);

  // Forget what follows the kept prefix before feeding, so a failure leaves
  // the history true to what the cache holds.
  tokens_.resize(from);
  logits_ = nullptr;
  const auto start = std::chrono::steady_clock::now();
  const int64_t executions = runner_->Executions();
  const float* logits = runner_->Prefill(conversation.data() + from,
                                         n - static_cast<int64_t>(from),
                                         static_cast<int64_t>(from), error);
  if (logits == nullptr) return false;
  stats->prefill_calls = runner_->Executions() - executions;
  stats->prefill_ms = MsSince(start);
  tokens_.insert(tokens_.end(),
                 conversation.begin() + static_cast<std::ptrdiff_t>(from),
                 conversation.end());
  logits_ = logits;
  return true;
}

bool LlmSession::Generate(const GenerationConfig& config,
                          const TokenCallback& on_token, GenerationStats* stats,
                          std::string* error) {
  if (logits_ == nullptr) {
    *error = tokens_.empty()
                 ? "the conversation is empty: Prefill or Append a turn first"
                 : "the last reply is already generated: Append the next "
                   "turn first";
    return false;
  }
  const float* logits = std::exchange(logits_, nullptr);
  return runner_->Decode(logits, position(), config, on_token, stats, &tokens_,
                         error);
}

}  // namespace llm
