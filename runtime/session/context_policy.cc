#include "runtime/session/context_policy.h"

namespace llm {

bool ParseContextPolicy(const std::string& name, ContextPolicy* policy,
                        std::string* error) {
  if (name == "error") {
    *policy = ContextPolicy::kError;
  } else if (name == "drop_oldest_turns") {
    *policy = ContextPolicy::kDropOldestTurns;
  } else {
    *error =
        "unknown context policy '" + name + "': use error or drop_oldest_turns";
    return false;
  }
  return true;
}

const char* ContextPolicyName(ContextPolicy policy) {
  return policy == ContextPolicy::kError ? "error" : "drop_oldest_turns";
}

bool FitConversation(const std::vector<tokenizer::ChatMessage>& messages,
                     ContextPolicy policy, int64_t max_context_len,
                     int64_t reply_reserve, const TokenCounter& count,
                     ContextFit* fit, std::string* error) {
  *fit = ContextFit();
  if (messages.empty()) {
    *error = "no messages to answer: pass at least one user message";
    return false;
  }
  if (reply_reserve < 1 || reply_reserve >= max_context_len) {
    *error = "the reply reserve must be between 1 and " +
             std::to_string(max_context_len - 1) + " tokens, not " +
             std::to_string(reply_reserve);
    return false;
  }
  const size_t first = messages[0].role == "system" ? 1 : 0;
  // Where each turn starts: a user message (a leading assistant message,
  // e.g. a greeting, belongs to the first turn).
  std::vector<size_t> turn_starts = {first};
  for (size_t i = first + 1; i < messages.size(); ++i) {
    if (messages[i].role == "user") turn_starts.push_back(i);
  }
  const int64_t budget = max_context_len - reply_reserve;
  const size_t last_choice =
      policy == ContextPolicy::kDropOldestTurns ? turn_starts.size() : 1;
  int64_t newest_tokens = 0;
  for (size_t dropped = 0; dropped < last_choice; ++dropped) {
    std::vector<tokenizer::ChatMessage> kept(messages.begin(),
                                             messages.begin() + first);
    kept.insert(kept.end(), messages.begin() + turn_starts[dropped],
                messages.end());
    const int64_t tokens = count(kept);
    newest_tokens = tokens;
    if (tokens <= budget) {
      fit->messages = std::move(kept);
      fit->tokens = tokens;
      fit->dropped_turns = static_cast<int64_t>(dropped);
      return true;
    }
  }
  const int64_t over = newest_tokens - budget;
  if (policy == ContextPolicy::kError) {
    *error = "the conversation is " + std::to_string(newest_tokens) +
             " tokens and " + std::to_string(reply_reserve) +
             " are kept for the reply, but the model's context is " +
             std::to_string(max_context_len) +
             " tokens: " + std::to_string(over) +
             " tokens over. Start a new conversation, choose the "
             "drop_oldest_turns context policy, or shorten the message";
  } else {
    *error = "even the newest turn alone is " + std::to_string(newest_tokens) +
             " tokens and " + std::to_string(reply_reserve) +
             " are kept for the reply, but the model's context is " +
             std::to_string(max_context_len) +
             " tokens: " + std::to_string(over) +
             " tokens over. Shorten the message or the system prompt, or "
             "keep less room for the reply";
  }
  return false;
}

}  // namespace llm
