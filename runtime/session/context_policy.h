// What to do when a conversation no longer fits the model's context.
//
// A conversation fits when its prompt tokens plus `reply_reserve` (room kept
// for the reply) are at most max_context_len. When it does not:
//   * kError: the turn is refused with a message that says how many tokens
//     were over; the conversation is left as it was.
//   * kDropOldestTurns: the system prompt and the newest turns are kept
//     whole, the oldest turns are left out until it fits, and a turn (a user
//     message and the replies that follow it) is never split. The session
//     then re-prefills once from the end of the system prompt.
// A sliding window over the KV cache (attention sinks) is not offered: the
// exported programs store keys already rotated for their absolute position,
// so shifting the cache would need every key re-rotated.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "tokenizer/runtime/chat_template.h"

namespace llm {

enum class ContextPolicy { kError, kDropOldestTurns };

// "error" or "drop_oldest_turns"; false + error naming both otherwise.
bool ParseContextPolicy(const std::string& name, ContextPolicy* policy,
                        std::string* error);
const char* ContextPolicyName(ContextPolicy policy);

struct ContextFit {
  // The messages to send: the leading system message (if any) and the kept
  // turns, in order.
  std::vector<tokenizer::ChatMessage> messages;
  int64_t tokens = 0;  // what `count` said they encode to
  int64_t dropped_turns = 0;
};

// Prompt tokens of a list of messages (the chat template applied, with the
// generation prompt).
using TokenCounter =
    std::function<int64_t(const std::vector<tokenizer::ChatMessage>&)>;

// Applies `policy`. False + error (how many tokens over, and what to do)
// when the conversation cannot be made to fit.
bool FitConversation(const std::vector<tokenizer::ChatMessage>& messages,
                     ContextPolicy policy, int64_t max_context_len,
                     int64_t reply_reserve, const TokenCounter& count,
                     ContextFit* fit, std::string* error);

}  // namespace llm
