// llm_main: runs an LLM .pte from //models on the CPU, streaming tokens.
//
//   llm_main --model=llama_int4.pte --tokenizer=smollm2.tok
//            --prompt="What is the capital of France?" --stats_json=stats.json
//   llm_main --model=llama_int4.pte --tokenizer=smollm2.tok --interactive
//
// Exit codes: 0 success, 1 the model or runtime failed, 2 bad flags or input.
#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/flags.h"
#include "runtime/cli/chat_repl.h"
#include "runtime/llm_runner.h"
#include "runtime/runtime_log.h"
#include "runtime/session/chat_session.h"
#include "tokenizer/runtime/bpe_tokenizer.h"
#include "tokenizer/runtime/chat_template.h"
#include "tokenizer/runtime/utf8_stream.h"

namespace {

constexpr int kRuntimeError = 1;
constexpr int kUsageError = 2;

constexpr const char kUsage[] = R"(usage: llm_main --model=PTE [flags]

Flags take --name=value or --name value.
Input (one of):
  --prompt=TEXT          text prompt (needs --tokenizer)
  --prompt_file=PATH     read the prompt text from a file
  --prompt_ids=1,2,3     token ids, used as-is (no tokenizer needed)
  --interactive          chat: each line on stdin is a turn, replies stream
                         to stdout; /reset, /stats, /quit (needs --tokenizer)
Conversation (--interactive):
  --context_policy=P     when a turn does not fit the context: error, or
                         drop_oldest_turns (whole turns, system kept) [error]
  --reply_reserve=N      tokens of context kept free for each reply
                         [--max_new_tokens, at most half the context]
  --kv_reuse=false       prefill the whole conversation every turn (only to
                         measure what reusing the KV cache buys)
Model:
  --model=PATH           the .pte (mmap'd)
  --manifest=PATH        its manifest [<model without .pte>.manifest.json]
  --skip_integrity_check do not check the .pte against its manifest's sha256
  --require_manifest     refuse a .pte that has no manifest (without it, such
                         a program runs unverified, with a note on stderr)
  --tokenizer=PATH       compiled tokenizer (.tok from //tokenizer/runtime)
  --chat=true|false      wrap --prompt in the model's chat template [true]
  --system=TEXT          system message for the chat template
Generation:
  --max_new_tokens=N     [128]
  --temperature=T        0 = greedy [0]
  --top_p=P              nucleus sampling mass, (0, 1] [1]
  --seed=N               sampler seed [0]
  --truncate_prompt      drop the oldest prompt tokens instead of failing
  --ignore_eos           keep going past end-of-sequence tokens
  --force_ids=1,2,3      teacher forcing: feed these ids after the prompt and
                         print what the model predicted at each step
  --speculative=MODE     off; prompt_lookup: draft the next tokens from an
                         earlier occurrence of the latest ones; or draft:
                         draft them with --draft_model. A verify call checks
                         a draft at once; greedy tokens are unchanged. Needs
                         a program with logit rows (recipe int4); otherwise
                         off, with a note [off]
  --draft_model=PATH     a smaller .pte with the same tokenizer, for
                         --speculative=draft (checked like --model, against
                         the manifest beside it)
  --draft_tokens=N       draft tokens per verify call, at most the program's
                         logit rows - 1 [7]
Runtime:
  --threads=N            CPU threads [half the cores]
  --warmup               run a one-token inference before timing
  --mlock                lock the weights in RAM
  --no_static_arena      malloc each planned buffer and all temp memory
                         (only to measure what the static arena buys)
Output:
  --stats_json=PATH      write timing/memory stats as JSON ("-" = stderr);
                         with --interactive, one JSON line per turn
  --print_ids            print the generated ids on stdout instead of text
  --logits_out=PATH      write the prefill's last logits (float32, raw)
  --backend_library=PATH load a delegate's shared library first, e.g.
                         ExecuTorch's QNN backend (comma-separated list)
  --verbose              show ExecuTorch's info logs
)";

llm::cli::FlagSet DeclareFlags() {
  llm::cli::FlagSet flags("llm_main", kUsage);
  for (const char* name :
       {"model",          "manifest",      "tokenizer",   "prompt",
        "prompt_file",    "prompt_ids",    "system",      "max_new_tokens",
        "temperature",    "top_p",         "seed",        "force_ids",
        "threads",        "stats_json",    "logits_out",  "backend_library",
        "context_policy", "reply_reserve", "speculative", "draft_tokens",
        "draft_model"}) {
    flags.Value(name);
  }
  for (const char* name :
       {"chat", "truncate_prompt", "ignore_eos", "warmup", "mlock", "print_ids",
        "verbose", "help", "no_static_arena", "interactive", "kv_reuse",
        "skip_integrity_check", "require_manifest"}) {
    flags.Bool(name);
  }
  return flags;
}

bool ParseIds(const std::string& text, std::vector<int64_t>* ids,
              std::string* error) {
  std::stringstream stream(text);
  std::string item;
  while (std::getline(stream, item, ',')) {
    char* end = nullptr;
    const long long id = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0') {
      *error = "'" + item + "' is not an integer (ids are comma-separated)";
      return false;
    }
    ids->push_back(id);
  }
  return true;
}

int Fail(int code, const std::string& message) {
  std::fprintf(stderr, "llm_main: error: %s\n", message.c_str());
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  llm::cli::FlagSet flags = DeclareFlags();
  std::string error;
  const bool parsed = flags.Parse(argc, argv, &error);
  if (flags.help()) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (!parsed) return Fail(kUsageError, error);
  llm::cli::ResolveUserPaths(&flags,
                             {"model", "manifest", "tokenizer", "prompt_file",
                              "backend_library", "draft_model"},
                             {"stats_json", "logits_out"});
  llm::SetRuntimeLogVerbose(flags.On("verbose"));
  if (!flags.Has("model")) {
    return Fail(
        kUsageError,
        "--model is required (e.g. --model=bazel-bin/models/llama_int4.pte)");
  }

  double temperature = 0, top_p = 0;
  int64_t max_new_tokens = 0, seed = 0, threads = 0, reply_reserve = 0,
          draft_tokens = 0;
  // The sampler's seed is 64 bits, but a flag cannot name more than int64.
  constexpr int64_t kMaxInt = std::numeric_limits<int64_t>::max();
  if (!flags.Integer("max_new_tokens", 128, 0, kMaxInt, &max_new_tokens,
                     &error) ||
      !flags.Number("temperature", 0, &temperature, &error) ||
      !flags.Number("top_p", 1, &top_p, &error) ||
      !flags.Integer("seed", 0, 0, kMaxInt, &seed, &error) ||
      !flags.Integer("threads", 0, 0, 1024, &threads, &error) ||
      !flags.Integer("reply_reserve", 0, 0, kMaxInt, &reply_reserve, &error) ||
      !flags.Integer("draft_tokens", 7, 1, 1024, &draft_tokens, &error)) {
    return Fail(kUsageError, error);
  }
  llm::SpeculationConfig speculation;
  speculation.max_draft = draft_tokens;
  if (!llm::ParseSpeculation(flags.Get("speculative", "off"), &speculation.mode,
                             &error)) {
    return Fail(kUsageError, error);
  }

  // A delegate shipped as its own shared library (ExecuTorch's QNN backend)
  // registers itself from a static initializer, so it must be loaded before
  // the program is; it stays loaded for the life of the process.
  if (flags.Has("backend_library")) {
    std::stringstream libraries(flags.Get("backend_library"));
    std::string library;
    while (std::getline(libraries, library, ',')) {
      if (dlopen(library.c_str(), RTLD_NOW | RTLD_GLOBAL) == nullptr) {
        return Fail(kUsageError,
                    "cannot load --backend_library=" + library + ": " +
                        dlerror() +
                        " (its own dependencies, e.g. the QAIRT libraries, "
                        "must be on LD_LIBRARY_PATH)");
      }
    }
  }

  llm::ProgramOptions program;
  program.pte_path = flags.Get("model");
  program.mlock = flags.On("mlock");
  program.static_arena = !flags.On("no_static_arena");
  program.integrity.manifest_path = flags.Get("manifest");
  program.integrity.skip = flags.On("skip_integrity_check");
  program.integrity.require_manifest = flags.On("require_manifest");
  // The draft is checked as the program is, against the manifest beside it.
  llm::ProgramOptions draft = program;
  draft.pte_path = flags.Get("draft_model");
  draft.integrity.manifest_path.clear();
  // Not an error: llm_chat's launcher passes both, and a later
  // --speculative=off turns drafting off.
  if (speculation.mode != llm::Speculation::kDraft && !draft.pte_path.empty()) {
    std::fprintf(stderr,
                 "llm_main: note: --draft_model is not loaded: it drafts only "
                 "with --speculative=draft\n");
    draft.pte_path.clear();
  }
  if (speculation.mode == llm::Speculation::kDraft && draft.pte_path.empty()) {
    return Fail(kUsageError,
                "--speculative=draft needs --draft_model, a smaller program "
                "exported with the same tokenizer (e.g. "
                "bazel-bin/models/tiny_int4.pte for llama_int4)");
  }

  if (flags.On("interactive")) {
    if (flags.Has("prompt") || flags.Has("prompt_file") ||
        flags.Has("prompt_ids")) {
      return Fail(kUsageError,
                  "--interactive reads its turns from stdin: drop --prompt, "
                  "--prompt_file and --prompt_ids");
    }
    if (!flags.Has("tokenizer")) {
      return Fail(kUsageError,
                  "--interactive needs --tokenizer (bazel build "
                  "//tokenizer/runtime:smollm2 gives "
                  "bazel-bin/tokenizer/runtime/smollm2.tok)");
    }
    llm::ChatOptions chat_options;
    chat_options.program = program;
    chat_options.draft = draft;
    chat_options.tokenizer_path = flags.Get("tokenizer");
    chat_options.threads = static_cast<uint32_t>(threads);
    chat_options.warmup = flags.On("warmup", true);
    llm::cli::ReplOptions repl;
    if (!llm::ParseContextPolicy(flags.Get("context_policy", "error"),
                                 &repl.request.context_policy, &error)) {
      return Fail(kUsageError, "--context_policy: " + error);
    }
    auto chat = llm::ChatSession::Open(chat_options, &error);
    if (!chat) return Fail(kRuntimeError, error);
    const int64_t context = chat->limits().max_context_len;
    repl.request.max_new_tokens = static_cast<int64_t>(max_new_tokens);
    repl.request.temperature = static_cast<float>(temperature);
    repl.request.top_p = static_cast<float>(top_p);
    repl.request.seed = static_cast<uint64_t>(seed);
    repl.request.reuse_cache = flags.On("kv_reuse", true);
    repl.request.speculation = speculation;
    repl.request.reply_reserve =
        reply_reserve > 0
            ? static_cast<int64_t>(reply_reserve)
            : std::max<int64_t>(
                  1,
                  std::min<int64_t>(repl.request.max_new_tokens, context / 2));
    if (repl.request.reply_reserve >= context) {
      return Fail(kUsageError, "--reply_reserve must be below the context of " +
                                   std::to_string(context) + " tokens");
    }
    if (flags.Has("system")) repl.system = flags.Get("system");
    repl.stats_json = flags.Get("stats_json");
    repl.prompt_marker = isatty(STDIN_FILENO) != 0;
    return llm::cli::RunChatRepl(chat.get(), repl, std::cin, stdout, stderr);
  }

  // The tokenizer is needed for text prompts and for printing text.
  std::optional<llm::tokenizer::BpeTokenizer> tokenizer;
  if (flags.Has("tokenizer")) {
    tokenizer =
        llm::tokenizer::BpeTokenizer::FromFile(flags.Get("tokenizer"), &error);
    if (!tokenizer) return Fail(kUsageError, error);
  }

  std::vector<int64_t> prompt;
  const int inputs =
      flags.Has("prompt") + flags.Has("prompt_file") + flags.Has("prompt_ids");
  if (inputs != 1) {
    return Fail(kUsageError,
                "give exactly one of --prompt, --prompt_file, --prompt_ids");
  }
  if (flags.Has("prompt_ids")) {
    if (!ParseIds(flags.Get("prompt_ids"), &prompt, &error))
      return Fail(kUsageError, error);
  } else {
    std::string text = flags.Get("prompt");
    if (flags.Has("prompt_file")) {
      std::ifstream in(flags.Get("prompt_file"), std::ios::binary);
      if (!in)
        return Fail(kUsageError,
                    "cannot read --prompt_file=" + flags.Get("prompt_file"));
      text.assign(std::istreambuf_iterator<char>(in),
                  std::istreambuf_iterator<char>());
    }
    if (!tokenizer) {
      return Fail(kUsageError,
                  "a text prompt needs --tokenizer (bazel build "
                  "//tokenizer/runtime:smollm2 "
                  "gives bazel-bin/tokenizer/runtime/smollm2.tok)");
    }
    // Instruct models answer properly only inside their chat template.
    if (flags.On("chat", true) && tokenizer->chat_template() != nullptr) {
      std::vector<llm::tokenizer::ChatMessage> messages;
      if (flags.Has("system"))
        messages.push_back({"system", flags.Get("system")});
      messages.push_back({"user", text});
      text = tokenizer->chat_template()->Apply(messages,
                                               /*add_generation_prompt=*/true);
    }
    for (int32_t id : tokenizer->Encode(text)) prompt.push_back(id);
  }

  llm::RunnerOptions options;
  options.program = program;
  options.draft = draft;
  options.threads = static_cast<uint32_t>(threads);
  options.warmup = flags.On("warmup");
  auto runner = llm::LlmRunner::Create(options, &error);
  if (!runner) return Fail(kRuntimeError, error);
  if (tokenizer && tokenizer->vocab_size() > runner->limits().vocab_size) {
    return Fail(kUsageError,
                "the tokenizer has " + std::to_string(tokenizer->vocab_size()) +
                    " tokens but the model only " +
                    std::to_string(runner->limits().vocab_size) +
                    ": pass the tokenizer this model was exported with");
  }

  llm::GenerationConfig config;
  config.max_new_tokens = static_cast<int64_t>(max_new_tokens);
  config.sampler.temperature = static_cast<float>(temperature);
  config.sampler.top_p = static_cast<float>(top_p);
  config.sampler.seed = static_cast<uint64_t>(seed);
  config.truncate_prompt = flags.On("truncate_prompt");
  config.stop_at_eos = !flags.On("ignore_eos");
  config.speculation = speculation;
  if (tokenizer) {
    for (int32_t id : tokenizer->stop_ids())
      config.extra_stop_ids.push_back(id);
  }
  if (flags.Has("force_ids") &&
      !ParseIds(flags.Get("force_ids"), &config.forced_tokens, &error)) {
    return Fail(kUsageError, error);
  }

  std::vector<float> prefill_logits;
  if (flags.Has("logits_out")) config.prefill_logits = &prefill_logits;

  const bool print_ids = flags.On("print_ids") || !tokenizer;
  llm::Utf8Stream stream;
  std::vector<int64_t> generated;
  const auto on_token = [&](int64_t token) {
    generated.push_back(token);
    if (print_ids) {
      std::printf("%s%lld", generated.size() > 1 ? " " : "",
                  static_cast<long long>(token));
    } else {
      const std::string text =
          stream.Push(tokenizer->TokenBytes(static_cast<int32_t>(token)));
      std::fwrite(text.data(), 1, text.size(), stdout);
    }
    std::fflush(stdout);
    return true;
  };
  llm::GenerationStats stats;
  const bool ok = runner->Generate(prompt, config, on_token, &stats, &error);
  const std::string rest = stream.Flush();
  std::fwrite(rest.data(), 1, rest.size(), stdout);
  std::printf("\n");
  if (!ok) {
    return Fail(stats.prompt_tokens == 0 ? kUsageError : kRuntimeError, error);
  }
  // Asked for and not run: say why once, the reply is still right.
  if (speculation.mode != llm::Speculation::kOff &&
      stats.speculation.rfind("off", 0) == 0) {
    std::fprintf(stderr, "llm_main: speculative decoding %s\n",
                 stats.speculation.c_str());
  }

  if (flags.Has("logits_out")) {
    std::ofstream out(flags.Get("logits_out"), std::ios::binary);
    out.write(
        reinterpret_cast<const char*>(prefill_logits.data()),
        static_cast<std::streamsize>(prefill_logits.size() * sizeof(float)));
    if (!out)
      return Fail(kRuntimeError,
                  "cannot write --logits_out=" + flags.Get("logits_out"));
  }
  if (flags.Has("stats_json")) {
    stats.model_sha256 = runner->ProgramSha256();
    const std::string json = stats.ToJson();
    const std::string path = flags.Get("stats_json");
    if (path == "-") {
      std::fputs(json.c_str(), stderr);
    } else {
      std::ofstream out(path);
      out << json;
      if (!out) return Fail(kRuntimeError, "cannot write --stats_json=" + path);
    }
  }
  return 0;
}
