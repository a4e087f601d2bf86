// One loaded model and tokenizer holding one conversation: chat messages in,
// text pieces out as tokens are sampled, with a stop request that any thread
// may make. llm_main --interactive, ask_main --interactive and the app's JNI
// bridge (runtime/jni) all drive chats through this class.
//
// Each request carries the whole conversation. The chat template renders it,
// the context policy decides which turns fit, and the KV cache is reused for
// the prefix it already holds (LlmSession), so turn N prefills only what turn
// N added: its user message, plus the previous reply's end-of-turn tokens.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/generation_stats.h"
#include "runtime/session/context_policy.h"
#include "runtime/session/llm_session.h"
#include "tokenizer/runtime/bpe_tokenizer.h"
#include "tokenizer/runtime/chat_template.h"

namespace llm {

struct ChatOptions {
  ProgramOptions program;      // the .pte, mmap'd, never copied
  std::string tokenizer_path;  // compiled .tok from //tokenizer/runtime
  uint32_t threads = 0;        // 0 = half the cores
  // A one-token inference at load, so XNNPACK's weight packing and the first
  // page faults are paid behind the loading screen, not in the first TTFT.
  bool warmup = true;
  // A smaller program with the same tokenizer, for speculative decoding by
  // draft (Speculation::kDraft); none when its pte_path is empty.
  ProgramOptions draft;
};

struct ChatRequest {
  // The conversation so far, ending with the message to answer. Wrapped in
  // the model's chat template, with the generation prompt added.
  std::vector<tokenizer::ChatMessage> messages;
  int64_t max_new_tokens = 256;
  float temperature = 0;  // 0 = greedy
  float top_p = 1;
  uint64_t seed = 0;
  ContextPolicy context_policy = ContextPolicy::kError;
  // Tokens of room the conversation must leave for the reply (>= 1).
  int64_t reply_reserve = 1;
  // false: prefill the whole conversation every turn, as a stateless runner
  // does (only to measure what reuse buys).
  bool reuse_cache = true;
  // Draft and verify several tokens per forward call (GenerationConfig).
  SpeculationConfig speculation;
  // Stop ids beyond the program's EOS and the tokenizer's stop tokens are
  // not needed for chat; teacher forcing is for tests (see GenerationConfig).
  std::vector<int64_t> forced_tokens;
};

// Called with each sampled token and the text it completes (possibly empty:
// a multi-byte character split across tokens is held back until complete).
// Return false to stop.
using PieceCallback =
    std::function<bool(int64_t token, const std::string& text)>;

class ChatSession {
 public:
  // Null + error (naming the file and the fix) on failure.
  static std::unique_ptr<ChatSession> Open(const ChatOptions& options,
                                           std::string* error);

  // Streams the reply to the conversation's last message. Returns false +
  // error on bad input (e.g. a conversation the policy cannot fit) or a
  // runtime failure; pieces already delivered stay valid. A stop request
  // ends generation before the next token is delivered; `stats->stop_reason`
  // is then "callback". `stats` also says what was reused and dropped.
  bool Generate(const ChatRequest& request, const PieceCallback& on_piece,
                GenerationStats* stats, std::string* error);

  // Forgets the cached conversation; the next request prefills from scratch.
  void Reset() { session_->Reset(); }

  // Thread-safe: the generating thread sees it before delivering the next
  // token. Cleared when the next Generate starts.
  void RequestStop() { stop_requested_.store(true); }

  // Token ids the chat template and tokenizer produce for `messages`.
  std::vector<int64_t> EncodeChat(
      const std::vector<tokenizer::ChatMessage>& messages) const;

  const tokenizer::BpeTokenizer& tokenizer() const { return *tokenizer_; }
  const LlmSession& session() const { return *session_; }
  const ProgramLimits& limits() const { return session_->runner().limits(); }
  uint32_t threads() const { return session_->runner().threads(); }
  double load_ms() const { return session_->runner().load_ms(); }
  double warmup_ms() const { return session_->runner().warmup_ms(); }

  // Use Open(); public only so std::make_unique can reach it.
  struct Key {
   private:
    friend class ChatSession;
    Key() = default;
  };
  explicit ChatSession(Key) {}

 private:
  std::unique_ptr<LlmSession> session_;
  std::optional<tokenizer::BpeTokenizer> tokenizer_;
  std::atomic<bool> stop_requested_{false};
};

}  // namespace llm
