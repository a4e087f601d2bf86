// The reusable LLM runner: prefill, KV-cache decode, sampling, stop tokens and
// timing, on top of LlmProgram. llm_main, //bench and the Android JNI bridge
// all drive generation through this class.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/generation_stats.h"
#include "runtime/llm_program.h"
#include "runtime/logits_model.h"
#include "runtime/sampler.h"
#include "runtime/speculative/draft_model.h"
#include "runtime/speculative/governor.h"
#include "runtime/speculative/prompt_lookup.h"

namespace llm {

struct RunnerOptions {
  ProgramOptions program;
  // 0 = DefaultThreadCount() (half the cores).
  uint32_t threads = 0;
  // Run a one-token inference at load, so first-use costs (XNNPACK weight
  // packing, page faults) land in load_ms instead of the first TTFT.
  bool warmup = false;
  // A smaller program with the same tokenizer, loaded beside the target when
  // its pte_path is set: Speculation::kDraft's source of drafts.
  ProgramOptions draft;
};

// Speculative decoding: guess the next tokens, verify them in one forward
// call, keep what the model agrees with. Under greedy sampling the tokens are
// exactly those of plain decoding; only the number of forward calls changes.
// Drafts come from the conversation itself (prompt lookup) or from a draft
// program (RunnerOptions::draft).
enum class Speculation { kOff, kPromptLookup, kDraft };

struct SpeculationConfig {
  Speculation mode = Speculation::kOff;
  // Draft tokens per verify call; the program's logit_rows - 1 bounds it.
  int64_t max_draft = 7;
  PromptLookupOptions lookup;
  // Fit each draft's length to what the model kept of the last, and pause
  // drafting while verify calls lose to plain steps (governor.h). Off, every
  // step drafts all it can.
  bool adaptive = true;
  GovernorOptions governor;
};

// "off", "prompt_lookup" or "draft" -> mode; anything else is false + the error
// a
// --speculative flag reports.
bool ParseSpeculation(const std::string& name, Speculation* mode,
                      std::string* error);

struct GenerationConfig {
  int64_t max_new_tokens = 128;
  SamplerConfig sampler;
  // Stop at the program's EOS ids plus these.
  std::vector<int64_t> extra_stop_ids;
  bool stop_at_eos = true;
  // A prompt that does not fit the context is an error unless this is set;
  // then its oldest tokens are dropped to leave room for max_new_tokens.
  bool truncate_prompt = false;
  // Teacher forcing: decode step t feeds forced_tokens[t] instead of the
  // sampled token (the callback still sees what was sampled). This scores a
  // fixed continuation, e.g. to compare two runtimes step by step.
  std::vector<int64_t> forced_tokens;
  // If set, receives a copy of the logits the first token was sampled from
  // (for checking numerics against another runtime).
  std::vector<float>* prefill_logits = nullptr;
  // Off unless asked for; it also stays off for sampling with a temperature,
  // for teacher forcing, and for programs that return one row of logits
  // (stats.speculation says why).
  SpeculationConfig speculation;
};

// Called with each token as soon as it is sampled (stop tokens excluded).
// Return false to stop.
// Runs on the generating thread; keep it short.
using TokenCallback = std::function<bool(int64_t token)>;

class LlmRunner {
 public:
  // Loads the program (timed into load_stats().load_ms). Null + error on
  // failure.
  static std::unique_ptr<LlmRunner> Create(const RunnerOptions& options,
                                           std::string* error);
  // A runner over another model, e.g. a fake in tests: no load time, no
  // integrity check, no sha256. `draft` (may be null) drafts for kDraft and
  // must have the model's vocabulary.
  static std::unique_ptr<LlmRunner> ForModel(
      std::unique_ptr<LogitsModel> model,
      std::unique_ptr<LogitsModel> draft = nullptr);

  const ProgramLimits& limits() const { return model_->limits(); }
  bool has_draft() const { return draft_model_ != nullptr; }
  uint32_t threads() const { return threads_; }
  double load_ms() const { return load_ms_; }
  double warmup_ms() const { return warmup_ms_; }
  // The program's sha256, for the stats JSON: free after a verified load.
  std::string ProgramSha256() const {
    return program_ != nullptr ? program_->Sha256() : "";
  }

  // Generates from `prompt` (token ids), starting with an empty KV cache.
  // Fills `stats` (timings, counts, allocations); false + error on bad input
  // or a runtime failure, in which case tokens already streamed stay valid.
  bool Generate(const std::vector<int64_t>& prompt,
                const GenerationConfig& config, const TokenCallback& on_token,
                GenerationStats* stats, std::string* error);

  // The two halves of Generate, for a caller that keeps the KV cache between
  // calls (LlmSession). The cache is the program's: one caller at a time.
  //
  // Feeds `count` tokens at KV positions [start, start + count), in chunks of
  // max_seq_len, and returns the last one's logits (valid until the next
  // forward call), or null + error.
  const float* Prefill(const int64_t* tokens, int64_t count, int64_t start,
                       std::string* error);
  // The model's graph executions so far (LogitsModel::executions).
  int64_t Executions() const { return model_->executions(); }
  // Samples from `logits` (what the token at position start - 1 predicted),
  // then decodes at positions start, start + 1, ... until a stop condition.
  // Each token it feeds to the model is appended to `*fed` (may be null);
  // reserve its capacity up front to keep decoding allocation-free. Adds the
  // first sample's time to stats->prefill_ms and sets ttft_ms to it.
  // Speculation looks up drafts in `*fed`, which must then hold the tokens
  // at positions [0, start); with `fed` null it stays off.
  bool Decode(const float* logits, int64_t start,
              const GenerationConfig& config, const TokenCallback& on_token,
              GenerationStats* stats, std::vector<int64_t>* fed,
              std::string* error);

  // Resets `stats` to this runner's constant figures (threads, load time,
  // platform) before a generation fills in the rest.
  void BeginStats(GenerationStats* stats) const;
  // Empty when `config` is usable with this program, else why not.
  std::string CheckConfig(const GenerationConfig& config) const;
  // Empty when every id is a token of the model, else which one is not
  // (`what` names the ids in the message, e.g. "prompt").
  std::string CheckTokens(const std::vector<int64_t>& ids,
                          const char* what) const;

  // Use Create(); public only so std::make_unique can reach it.
  struct Key {
   private:
    friend class LlmRunner;
    Key() = default;
  };
  explicit LlmRunner(Key) {}

 private:
  // The draft tokens a verify call may carry for `config`, 0 when speculation
  // is off; says which in stats->speculation.
  int64_t DraftBudget(const GenerationConfig& config, bool have_history,
                      GenerationStats* stats) const;

  std::unique_ptr<LogitsModel> model_;
  // model_, when it is a loaded program (not a fake).
  const LlmProgram* program_ = nullptr;
  // The draft program and the drafter that keeps its cache in step, for
  // every generation of this runner: a session's next turn feeds the draft
  // only what is new.
  std::unique_ptr<LogitsModel> draft_model_;
  std::unique_ptr<DraftModelDrafter> draft_drafter_;
  uint32_t threads_ = 1;
  double load_ms_ = 0;
  double warmup_ms_ = 0;
};

}  // namespace llm
