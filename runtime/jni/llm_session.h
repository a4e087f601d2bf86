// One loaded model and tokenizer, driven by the app: chat messages in, text
// pieces out as tokens are sampled, with a stop request that any thread may
// make. The JNI bridge (llm_engine_jni.cc) is a thin layer over this class,
// so everything here is plain C++ and is also exercised by the host JVM test.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/generation_stats.h"
#include "runtime/llm_runner.h"
#include "runtime/tokenizer/bpe_tokenizer.h"
#include "runtime/tokenizer/chat_template.h"

namespace llm {

struct SessionOptions {
  std::string pte_path;        // mmap'd by LlmProgram, never copied
  std::string tokenizer_path;  // compiled .tok from //runtime/tokenizer
  uint32_t threads = 0;        // 0 = half the cores
  // A one-token inference at load, so XNNPACK's weight packing and the first
  // page faults are paid behind the loading screen, not in the first TTFT.
  bool warmup = true;
};

struct SessionRequest {
  // Wrapped in the model's chat template, with the generation prompt added.
  std::vector<tokenizer::ChatMessage> messages;
  int64_t max_new_tokens = 256;
  float temperature = 0;  // 0 = greedy
  float top_p = 1;
  uint64_t seed = 0;
};

// Called with each sampled token and the text it completes (possibly empty:
// a multi-byte character split across tokens is held back until complete).
// Return false to stop.
using PieceCallback =
    std::function<bool(int64_t token, const std::string& text)>;

class LlmSession {
 public:
  // Null + error (naming the file and the fix) on failure.
  static std::unique_ptr<LlmSession> Open(const SessionOptions& options,
                                          std::string* error);

  // Streams the reply. Returns false + error on bad input (e.g. a prompt
  // longer than the context) or a runtime failure; pieces already delivered
  // stay valid. A stop request ends generation before the next token is
  // delivered; `stats->stop_reason` is then "callback".
  bool Generate(const SessionRequest& request, const PieceCallback& on_piece,
                GenerationStats* stats, std::string* error);

  // Thread-safe: the generating thread sees it before delivering the next
  // token. Cleared when the next Generate starts.
  void RequestStop() { stop_requested_.store(true); }

  // Token ids the chat template and tokenizer produce for `messages`.
  std::vector<int64_t> EncodeChat(
      const std::vector<tokenizer::ChatMessage>& messages) const;

  const ProgramLimits& limits() const { return runner_->limits(); }
  uint32_t threads() const { return runner_->threads(); }
  double load_ms() const { return runner_->load_ms(); }
  double warmup_ms() const { return runner_->warmup_ms(); }

  // Use Open(); public only so std::make_unique can reach it.
  struct Key {
   private:
    friend class LlmSession;
    Key() = default;
  };
  explicit LlmSession(Key) {}

 private:
  std::unique_ptr<LlmRunner> runner_;
  std::optional<tokenizer::BpeTokenizer> tokenizer_;
  std::atomic<bool> stop_requested_{false};
};

}  // namespace llm
