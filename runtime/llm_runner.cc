#include "runtime/llm_runner.h"

#include <algorithm>
#include <chrono>

#include "runtime/allocation_counter.h"
#include "runtime/threadpool_control.h"

namespace llm {
namespace {

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

// Empty when every id is a token of the model, else which one is not.
std::string CheckIds(const std::vector<int64_t>& ids, const char* what,
                     const ProgramLimits& limits) {
  for (int64_t id : ids) {
    if (id < 0 || id >= limits.vocab_size) {
      return std::string(what) + " token " + std::to_string(id) +
             " is outside the vocabulary (0.." +
             std::to_string(limits.vocab_size - 1) +
             "); was it encoded with this model's tokenizer?";
    }
  }
  return "";
}

// Empty when `draft` can draft for `target`, else why not.
std::string CheckDraft(const ProgramLimits& target, const ProgramLimits& draft,
                       const std::string& draft_name) {
  if (draft.vocab_size != target.vocab_size) {
    return "the draft program " + draft_name + " has " +
           std::to_string(draft.vocab_size) + " tokens but the program " +
           std::to_string(target.vocab_size) +
           ": a draft proposes token ids, so pair programs exported with the "
           "same tokenizer";
  }
  return "";
}

}  // namespace

bool ParseSpeculation(const std::string& name, Speculation* mode,
                      std::string* error) {
  if (name == "off") {
    *mode = Speculation::kOff;
  } else if (name == "prompt_lookup") {
    *mode = Speculation::kPromptLookup;
  } else if (name == "draft") {
    *mode = Speculation::kDraft;
  } else {
    *error = "--speculative=" + name +
             " is not a mode: use off, prompt_lookup or draft";
    return false;
  }
  return true;
}

std::unique_ptr<LlmRunner> LlmRunner::ForModel(
    std::unique_ptr<LogitsModel> model, std::unique_ptr<LogitsModel> draft) {
  auto runner = std::make_unique<LlmRunner>(Key());
  runner->model_ = std::move(model);
  if (draft != nullptr) {
    runner->draft_model_ = std::move(draft);
    runner->draft_drafter_ =
        std::make_unique<DraftModelDrafter>(runner->draft_model_.get());
  }
  return runner;
}

std::unique_ptr<LlmRunner> LlmRunner::Create(const RunnerOptions& options,
                                             std::string* error) {
  auto runner = std::make_unique<LlmRunner>(Key());
  // Before loading: XNNPACK binds the thread pool when it compiles the
  // delegate, so a later resize would leave it holding a stale pool.
  runner->threads_ = SetThreadCount(options.threads > 0 ? options.threads
                                                        : DefaultThreadCount());

  const auto start = Clock::now();
  std::unique_ptr<LlmProgram> program =
      LlmProgram::Load(options.program, error);
  if (!program) return nullptr;
  runner->program_ = program.get();
  runner->model_ = std::move(program);
  if (!options.draft.pte_path.empty()) {
    std::unique_ptr<LlmProgram> draft = LlmProgram::Load(options.draft, error);
    if (!draft) {
      *error = "the draft program: " + *error;
      return nullptr;
    }
    *error =
        CheckDraft(runner->limits(), draft->limits(), options.draft.pte_path);
    if (!error->empty()) return nullptr;
    runner->draft_model_ = std::move(draft);
    runner->draft_drafter_ =
        std::make_unique<DraftModelDrafter>(runner->draft_model_.get());
  }
  if (options.warmup) {
    const auto warm = Clock::now();
    const int64_t token = std::max<int64_t>(0, runner->limits().bos_id);
    if (runner->model_->Forward(&token, 1, 0, error) == nullptr) {
      return nullptr;
    }
    // The drafter feeds the draft from position 0 on first use, so this
    // row is overwritten before it is read.
    if (runner->draft_model_ != nullptr &&
        runner->draft_model_->Forward(&token, 1, 0, error) == nullptr) {
      return nullptr;
    }
    runner->warmup_ms_ = MsSince(warm);
  }
  runner->load_ms_ = MsSince(start);
  return runner;
}

void LlmRunner::BeginStats(GenerationStats* stats) const {
  *stats = GenerationStats();
  stats->threads = threads_;
  stats->load_ms = load_ms_;
  stats->warmup_ms = warmup_ms_;
  stats->platform = PlatformName();
  if (program_ != nullptr) {
    stats->integrity = program_->integrity();
    stats->integrity_ms = program_->integrity_ms();
  }
}

std::string LlmRunner::CheckTokens(const std::vector<int64_t>& ids,
                                   const char* what) const {
  return CheckIds(ids, what, model_->limits());
}

std::string LlmRunner::CheckConfig(const GenerationConfig& config) const {
  const std::string sampler_problem = ValidateSamplerConfig(config.sampler);
  if (!sampler_problem.empty()) return sampler_problem;
  if (config.max_new_tokens < 1) return "--max_new_tokens must be at least 1";
  if (config.speculation.mode != Speculation::kOff) {
    if (config.speculation.max_draft < 1) {
      return "the speculative draft length must be at least 1";
    }
    const std::string lookup =
        ValidatePromptLookupOptions(config.speculation.lookup);
    if (!lookup.empty()) return lookup;
    const std::string governor =
        ValidateGovernorOptions(config.speculation.governor);
    if (!governor.empty()) return governor;
  }
  return CheckIds(config.forced_tokens, "forced", model_->limits());
}

bool LlmRunner::Generate(const std::vector<int64_t>& prompt_in,
                         const GenerationConfig& config,
                         const TokenCallback& on_token, GenerationStats* stats,
                         std::string* error) {
  const ProgramLimits& limits = model_->limits();
  BeginStats(stats);
  *error = CheckConfig(config);
  if (!error->empty()) return false;
  if (prompt_in.empty()) {
    *error = "the prompt is empty: give at least one token";
    return false;
  }
  *error = CheckIds(prompt_in, "prompt", limits);
  if (!error->empty()) return false;
  // Prefill, plus at least the first generated token, must fit the cache.
  std::vector<int64_t> prompt = prompt_in;
  const int64_t context = limits.max_context_len;
  if (static_cast<int64_t>(prompt.size()) >= context &&
      !config.truncate_prompt) {
    *error = "the prompt is " + std::to_string(prompt.size()) +
             " tokens but the model's context is " + std::to_string(context) +
             " (including the reply): shorten the prompt, pass "
             "--truncate_prompt to drop its oldest tokens, or export the "
             "model with a larger max_context_len";
    return false;
  }
  if (config.truncate_prompt) {
    const int64_t keep = std::max<int64_t>(
        1, std::min<int64_t>(
               static_cast<int64_t>(prompt.size()),
               context - std::min(config.max_new_tokens, context - 1)));
    stats->truncated_prompt_tokens = static_cast<int64_t>(prompt.size()) - keep;
    prompt.erase(prompt.begin(), prompt.end() - keep);
  }
  const int64_t n = static_cast<int64_t>(prompt.size());
  stats->prompt_tokens = n;
  stats->prefilled_tokens = n;

  const auto start = Clock::now();
  const int64_t executions = model_->executions();
  const float* logits = Prefill(prompt.data(), n, 0, error);
  if (logits == nullptr) return false;
  stats->prefill_calls = model_->executions() - executions;
  stats->prefill_ms = MsSince(start);
  // What the cache holds, for drafts to be looked up in; reserved whole so
  // decoding never allocates.
  std::vector<int64_t> history;
  if (config.speculation.mode != Speculation::kOff) {
    history.reserve(static_cast<size_t>(context));
    history = prompt;
  }
  return Decode(
      logits, n, config, on_token, stats,
      config.speculation.mode != Speculation::kOff ? &history : nullptr, error);
}

const float* LlmRunner::Prefill(const int64_t* tokens, int64_t count,
                                int64_t start, std::string* error) {
  const ProgramLimits& limits = model_->limits();
  if (count < 1 || start < 0 || start + count > limits.max_context_len) {
    *error = "cannot prefill " + std::to_string(count) +
             " tokens at position " + std::to_string(start) +
             ": the model's context is " +
             std::to_string(limits.max_context_len) + " tokens";
    return nullptr;
  }
  const float* logits = nullptr;
  for (int64_t done = 0; done < count; done += limits.max_seq_len) {
    const int64_t chunk = std::min(limits.max_seq_len, count - done);
    logits = model_->Forward(tokens + done, chunk, start + done, error);
    if (logits == nullptr) return nullptr;
  }
  return logits;
}

int64_t LlmRunner::DraftBudget(const GenerationConfig& config,
                               bool have_history,
                               GenerationStats* stats) const {
  const ProgramLimits& limits = model_->limits();
  stats->speculation = "off";
  if (config.speculation.mode == Speculation::kOff) return 0;
  // Greedy verification is exact; sampling would need the rejection rule.
  if (config.sampler.temperature > 0) {
    stats->speculation = "off (sampling with a temperature)";
  } else if (!config.forced_tokens.empty()) {
    stats->speculation = "off (teacher forcing)";
  } else if (limits.logit_rows < 2) {
    stats->speculation =
        "off (the program returns one row of logits per call; export it "
        "with logit_rows, as recipe int4 does)";
  } else if (!have_history) {
    stats->speculation = "off (no history to draft from)";
  } else if (config.speculation.mode == Speculation::kDraft &&
             draft_model_ == nullptr) {
    stats->speculation =
        "off (no draft program: pass --draft_model, a program exported with "
        "the same tokenizer)";
  } else {
    stats->speculation = config.speculation.mode == Speculation::kDraft
                             ? "draft"
                             : "prompt_lookup";
    return std::min(config.speculation.max_draft, limits.logit_rows - 1);
  }
  return 0;
}

bool LlmRunner::Decode(const float* logits, int64_t start,
                       const GenerationConfig& config,
                       const TokenCallback& on_token, GenerationStats* stats,
                       std::vector<int64_t>* fed, std::string* error) {
  const ProgramLimits& limits = model_->limits();
  *error = CheckConfig(config);
  if (!error->empty()) return false;
  std::vector<int64_t> stop_ids = config.extra_stop_ids;
  if (config.stop_at_eos) {
    stop_ids.insert(stop_ids.end(), limits.eos_ids.begin(),
                    limits.eos_ids.end());
  }
  Sampler sampler(config.sampler, static_cast<int32_t>(limits.vocab_size));
  stats->token_ms.reserve(static_cast<size_t>(config.max_new_tokens));

  // Everything speculation needs is made here, before the timed steps.
  const int64_t max_draft = DraftBudget(config, fed != nullptr, stats);
  PromptLookupDrafter lookup(config.speculation.lookup);
  Drafter* drafter = &lookup;
  const int64_t draft_calls_before =
      draft_drafter_ != nullptr ? draft_drafter_->calls() : 0;
  if (config.speculation.mode == Speculation::kDraft && max_draft > 0) {
    drafter = draft_drafter_.get();
  }
  SpeculationGovernor governor(config.speculation.governor);
  const int64_t executions_before = model_->executions();
  // The token to feed, then the draft after it.
  std::vector<int64_t> chunk(static_cast<size_t>(max_draft) + 1);

  const auto first = Clock::now();
  // The draft program reads the prompt beside the target, as part of the
  // time to the first token.
  if (drafter == draft_drafter_.get() &&
      !draft_drafter_->Prefill(fed->data(),
                               static_cast<int64_t>(fed->size()))) {
    *error = "the draft program failed: " + draft_drafter_->error();
    return false;
  }
  if (config.prefill_logits != nullptr) {
    config.prefill_logits->assign(logits, logits + limits.vocab_size);
  }
  int64_t token = sampler.Sample(logits);
  stats->prefill_ms += MsSince(first);
  stats->ttft_ms = stats->prefill_ms;
  stats->generated_tokens = 1;

  const bool counting = AllocationCounter::Supported();
  uint64_t allocations = 0;
  const int64_t context = limits.max_context_len;
  int64_t pos = start;
  // Whether generation goes on after `t` (the token at `pos`) is shown.
  auto keep_going = [&](int64_t t) {
    // Stop tokens end the reply; they are not part of it.
    if (std::find(stop_ids.begin(), stop_ids.end(), t) != stop_ids.end()) {
      stats->stop_reason = "eos";
    } else if (on_token && !on_token(t)) {
      stats->stop_reason = "callback";
    } else if (stats->generated_tokens >= config.max_new_tokens) {
      stats->stop_reason = "max_new_tokens";
    } else if (pos >= context) {
      stats->stop_reason = "context_full";
    } else {
      return true;
    }
    return false;
  };
  for (bool going = keep_going(token); going;) {
    const size_t step_index = stats->token_ms.size();
    if (step_index < config.forced_tokens.size()) {
      token = config.forced_tokens[step_index];
    }
    chunk[0] = token;
    int64_t drafted = 0;
    // A draft must fit the context and not outrun max_new_tokens.
    int64_t room = std::min({max_draft, context - 1 - pos,
                             config.max_new_tokens - stats->generated_tokens});
    if (config.speculation.adaptive) room = governor.DraftLength(room);
    // A step's time includes drafting: a draft program's steps are part of
    // what a verify call costs against a plain step.
    const auto step = Clock::now();
    const uint64_t before = counting ? AllocationCounter::Count() : 0;
    if (room > 0) {
      fed->push_back(token);
      drafted = drafter->Propose(fed->data(), static_cast<int64_t>(fed->size()),
                                 room, chunk.data() + 1);
      fed->pop_back();
      if (drafter == draft_drafter_.get() && !draft_drafter_->error().empty()) {
        *error = "the draft program failed: " + draft_drafter_->error();
        return false;
      }
    }
    const float* rows =
        model_->ForwardRows(chunk.data(), drafted + 1, pos, drafted + 1, error);
    if (rows == nullptr) return false;
    // Row i holds what follows chunk[i]: keep drafts while the model's own
    // choice is the draft's next token.
    int64_t next = sampler.Sample(rows);
    int64_t accepted = 0;
    while (accepted < drafted && next == chunk[1 + accepted]) {
      ++accepted;
      next = sampler.Sample(rows + accepted * limits.vocab_size);
    }
    // The first decode step may size XNNPACK's workspace for the new
    // one-token shape; every later step must allocate nothing.
    if (counting && pos > start) {
      allocations += AllocationCounter::Count() - before;
    }
    const double ms = MsSince(step);
    if (drafted > 0) {
      ++stats->draft_calls;
      stats->drafted_tokens += drafted;
      governor.RecordVerify(ms, drafted, accepted);
    } else if (max_draft > 0 && pos > start) {
      governor.RecordPlain(ms);
    }
    // Each token of the call gets an equal share of its time.
    const double share = ms / static_cast<double>(accepted + 1);
    if (fed != nullptr) fed->push_back(token);
    ++pos;
    // The accepted drafts are shown as if sampled one by one; they are in
    // the cache already.
    for (int64_t i = 1; i <= accepted && going; ++i) {
      // Counted as it is used: drafts after a stop are not part of the reply.
      ++stats->accepted_tokens;
      stats->token_ms.push_back(share);
      ++stats->generated_tokens;
      going = keep_going(chunk[i]);
      if (going) {
        if (fed != nullptr) fed->push_back(chunk[i]);
        ++pos;
      }
    }
    if (!going) break;
    stats->token_ms.push_back(share);
    ++stats->generated_tokens;
    token = next;
    going = keep_going(token);
  }
  stats->forward_calls = model_->executions() - executions_before;
  stats->speculation_pauses = governor.pauses();
  if (draft_drafter_ != nullptr) {
    stats->draft_model_calls = draft_drafter_->calls() - draft_calls_before;
  }
  // Decode time is the steps' own time: the callback (printing, UI) is not
  // the model's cost.
  double steps = 0;
  for (double ms : stats->token_ms) steps += ms;
  stats->decode_ms = steps;
  stats->decode_allocations = counting ? static_cast<int64_t>(allocations) : -1;
  stats->peak_rss_mb = PeakRssMb();
  return true;
}

}  // namespace llm
