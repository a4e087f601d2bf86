// Command-line access to BpeTokenizer, for tests and for trying it out.
//
//   tokenizer_cli --tokenizer=FILE encode [--timing] < text     ids, one a line
//   tokenizer_cli --tokenizer=FILE decode [--skip_special_tokens] < ids
//   tokenizer_cli --tokenizer=FILE chat [--add_generation_prompt]
//       (--system=TEXT | --user=TEXT | --assistant=TEXT |
//       --message=ROLE:TEXT)...
//   tokenizer_cli --tokenizer=FILE info
//
// encode reads all of stdin as bytes; decode reads whitespace-separated ids
// and writes the text's bytes; chat writes the prompt that the messages, in
// the order given, render to.

#include <chrono>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "cli/flags.h"
#include "tokenizer/runtime/bpe_tokenizer.h"

namespace llm::tokenizer {
namespace {

constexpr std::string_view kUsage =
    "usage: tokenizer_cli --tokenizer=FILE COMMAND [FLAGS]\n"
    "  encode [--timing]               stdin text -> ids, one per line\n"
    "  decode [--skip_special_tokens]  stdin ids -> text\n"
    "  chat [--add_generation_prompt] (--system=T | --user=T | --assistant=T "
    "| --message=ROLE:T)...\n"
    "  info                            ids of bos, eos, stop tokens\n";

int UsageError(const std::string& message) {
  std::cerr << "tokenizer_cli: " << message << "\n" << kUsage;
  return 2;
}

std::string ReadAll(std::istream& in) {
  return std::string(std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
}

int Encode(const BpeTokenizer& tokenizer, bool timing) {
  const std::string text = ReadAll(std::cin);
  const auto start = std::chrono::steady_clock::now();
  const std::vector<int32_t> ids = tokenizer.Encode(text);
  const std::chrono::duration<double> seconds =
      std::chrono::steady_clock::now() - start;
  std::string out;
  out.reserve(ids.size() * 6);
  for (const int32_t id : ids) out.append(std::to_string(id)).push_back('\n');
  std::fwrite(out.data(), 1, out.size(), stdout);
  if (timing) {
    std::fprintf(stderr,
                 "encoded %zu bytes into %zu tokens in %.1f ms (%.2f MB/s)\n",
                 text.size(), ids.size(), seconds.count() * 1e3,
                 text.size() / 1e6 / seconds.count());
  }
  return 0;
}

int Decode(const BpeTokenizer& tokenizer, bool skip_special_tokens) {
  std::vector<int32_t> ids;
  long long id;
  while (std::cin >> id) {
    if (id < INT32_MIN || id > INT32_MAX) {
      std::cerr << "tokenizer_cli: id " << id << " is out of range\n";
      return 1;
    }
    ids.push_back(static_cast<int32_t>(id));
  }
  if (!std::cin.eof()) {
    std::cerr << "tokenizer_cli: decode reads whitespace-separated integers\n";
    return 1;
  }
  const std::string text = tokenizer.Decode(ids, skip_special_tokens);
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

int Info(const BpeTokenizer& tokenizer) {
  std::cout << "vocab_size " << tokenizer.vocab_size() << "\n"
            << "bos_id " << tokenizer.bos_id() << "\n"
            << "eos_id " << tokenizer.eos_id() << "\n"
            << "stop_ids";
  for (const int32_t id : tokenizer.stop_ids()) std::cout << " " << id;
  std::cout << "\n";
  return 0;
}

int Main(int argc, char** argv) {
  cli::FlagSet flags("tokenizer_cli", std::string(kUsage));
  flags.Value("tokenizer")
      .Bool("timing")
      .Bool("skip_special_tokens")
      .Bool("add_generation_prompt")
      .Bool("help")
      .Repeated("system")
      .Repeated("user")
      .Repeated("assistant")
      .Repeated("message")
      .Positionals(1, "command");
  std::string parse_error;
  const bool parsed = flags.Parse(argc, argv, &parse_error);
  if (flags.help()) {
    std::cout << kUsage;
    return 0;
  }
  if (!parsed) return UsageError(parse_error);
  const std::string tokenizer_path = flags.Get("tokenizer");
  const std::string command =
      flags.positionals().empty() ? "" : flags.positionals()[0];
  const bool timing = flags.On("timing");
  const bool skip_special_tokens = flags.On("skip_special_tokens");
  const bool add_generation_prompt = flags.On("add_generation_prompt");
  // In command-line order: --system, --user and --assistant name their role;
  // --message=ROLE:CONTENT names any role.
  std::vector<ChatMessage> messages;
  for (const auto& [name, value] : flags.ordered()) {
    if (name != "message") {
      messages.push_back({name, value});
      continue;
    }
    const size_t colon = value.find(':');
    if (colon == std::string::npos) {
      return UsageError("--message=" + value + " needs ROLE:CONTENT");
    }
    messages.push_back({value.substr(0, colon), value.substr(colon + 1)});
  }
  if (tokenizer_path.empty()) return UsageError("--tokenizer=FILE is required");

  std::string error;
  const std::optional<BpeTokenizer> tokenizer =
      BpeTokenizer::FromFile(tokenizer_path, &error);
  if (!tokenizer) {
    std::cerr << "tokenizer_cli: " << error << "\n";
    return 1;
  }
  if (command == "encode") return Encode(*tokenizer, timing);
  if (command == "decode") return Decode(*tokenizer, skip_special_tokens);
  if (command == "info") return Info(*tokenizer);
  if (command == "chat") {
    if (tokenizer->chat_template() == nullptr) {
      std::cerr << "tokenizer_cli: " << tokenizer_path
                << " has no chat template\n";
      return 1;
    }
    const std::string prompt =
        tokenizer->chat_template()->Apply(messages, add_generation_prompt);
    std::fwrite(prompt.data(), 1, prompt.size(), stdout);
    return 0;
  }
  return UsageError(command.empty() ? "no command given"
                                    : "unknown command " + command);
}

}  // namespace
}  // namespace llm::tokenizer

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  return llm::tokenizer::Main(argc, argv);
}
