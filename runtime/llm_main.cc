// llm_main: runs an LLM .pte from //models on the CPU, streaming tokens.
//
//   llm_main --model=llama_int4.pte --tokenizer=smollm2.tok
//            --prompt="What is the capital of France?" --stats_json=stats.json
//
// Exit codes: 0 success, 1 the model or runtime failed, 2 bad flags or input.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/llm_runner.h"
#include "runtime/runtime_log.h"
#include "runtime/sha256.h"
#include "runtime/tokenizer/bpe_tokenizer.h"
#include "runtime/tokenizer/chat_template.h"
#include "runtime/utf8_stream.h"

namespace {

constexpr int kRuntimeError = 1;
constexpr int kUsageError = 2;

constexpr const char kUsage[] = R"(usage: llm_main --model=PTE [flags]

Input (one of):
  --prompt=TEXT          text prompt (needs --tokenizer)
  --prompt_file=PATH     read the prompt text from a file
  --prompt_ids=1,2,3     token ids, used as-is (no tokenizer needed)
Model:
  --model=PATH           the .pte (mmap'd)
  --tokenizer=PATH       compiled tokenizer (.tok from //runtime/tokenizer)
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
Runtime:
  --threads=N            CPU threads [half the cores]
  --warmup               run a one-token inference before timing
  --mlock                lock the weights in RAM
  --no_static_arena      malloc each planned buffer and all temp memory
                         (only to measure what the static arena buys)
Output:
  --stats_json=PATH      write timing/memory stats as JSON ("-" = stderr)
  --print_ids            print the generated ids on stdout instead of text
  --logits_out=PATH      write the prefill's last logits (float32, raw)
  --backend_library=PATH load a delegate's shared library first, e.g.
                         ExecuTorch's QNN backend (comma-separated list)
  --verbose              show ExecuTorch's info logs
)";

struct Flags {
  std::map<std::string, std::string> values;
  std::string error;

  bool Has(const std::string& name) const { return values.count(name) > 0; }
  std::string Get(const std::string& name,
                  const std::string& fallback = "") const {
    auto it = values.find(name);
    return it == values.end() ? fallback : it->second;
  }
};

const char* const kKnownFlags[] = {"model",
                                   "tokenizer",
                                   "prompt",
                                   "prompt_file",
                                   "prompt_ids",
                                   "chat",
                                   "system",
                                   "max_new_tokens",
                                   "temperature",
                                   "top_p",
                                   "seed",
                                   "truncate_prompt",
                                   "ignore_eos",
                                   "force_ids",
                                   "threads",
                                   "warmup",
                                   "mlock",
                                   "stats_json",
                                   "print_ids",
                                   "logits_out",
                                   "verbose",
                                   "help",
                                   "no_static_arena",
                                   "backend_library"};

Flags ParseFlags(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) {
      flags.error =
          "unexpected argument '" + arg + "' (flags look like --name=value)";
      return flags;
    }
    arg = arg.substr(2);
    const size_t eq = arg.find('=');
    std::string name = arg.substr(0, eq);
    std::string value = eq == std::string::npos ? "true" : arg.substr(eq + 1);
    bool known = false;
    for (const char* k : kKnownFlags) known = known || name == k;
    if (!known) {
      flags.error = "unknown flag --" + name + " (see --help)";
      return flags;
    }
    flags.values[name] = value;
  }
  return flags;
}

// Under `bazel run` the process starts in its runfiles tree, where the
// bundled model and tokenizer live; the user's own relative paths mean their
// shell's directory, which Bazel passes as BUILD_WORKING_DIRECTORY.
void ResolveUserPaths(Flags* flags) {
  const char* user_dir = std::getenv("BUILD_WORKING_DIRECTORY");
  if (user_dir == nullptr) return;
  const auto in_user_dir = [&](const std::string& path) {
    return path.empty() || path[0] == '/' ? path
                                          : std::string(user_dir) + "/" + path;
  };
  for (const char* input :
       {"model", "tokenizer", "prompt_file", "backend_library"}) {
    auto it = flags->values.find(input);
    if (it != flags->values.end() && !std::ifstream(it->second).good()) {
      it->second = in_user_dir(it->second);
    }
  }
  for (const char* output : {"stats_json", "logits_out"}) {
    auto it = flags->values.find(output);
    if (it != flags->values.end() && it->second != "-")
      it->second = in_user_dir(it->second);
  }
}

bool ParseNumber(const Flags& flags, const std::string& name, double fallback,
                 double* out, std::string* error) {
  const std::string text = flags.Get(name);
  if (text.empty()) {
    *out = fallback;
    return true;
  }
  char* end = nullptr;
  *out = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0') {
    *error = "--" + name + "=" + text + " is not a number";
    return false;
  }
  return true;
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

bool IsTrue(const std::string& value) {
  return value == "true" || value == "1" || value == "yes";
}

int Fail(int code, const std::string& message) {
  std::fprintf(stderr, "llm_main: error: %s\n", message.c_str());
  return code;
}

}  // namespace

int main(int argc, char** argv) {
  Flags flags = ParseFlags(argc, argv);
  if (!flags.error.empty()) return Fail(kUsageError, flags.error);
  ResolveUserPaths(&flags);
  if (flags.Has("help")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  llm::SetRuntimeLogVerbose(IsTrue(flags.Get("verbose", "false")));
  if (!flags.Has("model")) {
    return Fail(
        kUsageError,
        "--model is required (e.g. --model=bazel-bin/models/llama_int4.pte)");
  }

  std::string error;
  double max_new_tokens = 0, temperature = 0, top_p = 0, seed = 0, threads = 0;
  if (!ParseNumber(flags, "max_new_tokens", 128, &max_new_tokens, &error) ||
      !ParseNumber(flags, "temperature", 0, &temperature, &error) ||
      !ParseNumber(flags, "top_p", 1, &top_p, &error) ||
      !ParseNumber(flags, "seed", 0, &seed, &error) ||
      !ParseNumber(flags, "threads", 0, &threads, &error)) {
    return Fail(kUsageError, error);
  }
  if (threads < 0) return Fail(kUsageError, "--threads must be >= 0");

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
                  "//runtime/tokenizer:smollm2 "
                  "gives bazel-bin/runtime/tokenizer/smollm2.tok)");
    }
    // Instruct models answer properly only inside their chat template.
    if (IsTrue(flags.Get("chat", "true")) &&
        tokenizer->chat_template() != nullptr) {
      std::vector<llm::tokenizer::ChatMessage> messages;
      if (flags.Has("system"))
        messages.push_back({"system", flags.Get("system")});
      messages.push_back({"user", text});
      text = tokenizer->chat_template()->Apply(messages,
                                               /*add_generation_prompt=*/true);
    }
    for (int32_t id : tokenizer->Encode(text)) prompt.push_back(id);
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

  llm::RunnerOptions options;
  options.program.pte_path = flags.Get("model");
  options.program.mlock = IsTrue(flags.Get("mlock", "false"));
  options.program.static_arena = !IsTrue(flags.Get("no_static_arena", "false"));
  options.threads = static_cast<uint32_t>(threads);
  options.warmup = IsTrue(flags.Get("warmup", "false"));
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
  config.truncate_prompt = IsTrue(flags.Get("truncate_prompt", "false"));
  config.stop_at_eos = !IsTrue(flags.Get("ignore_eos", "false"));
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

  const bool print_ids = IsTrue(flags.Get("print_ids", "false")) || !tokenizer;
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
    stats.model_sha256 = llm::Sha256File(options.program.pte_path);
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
