// Command-line access to WordPieceTokenizer, for tests and for trying it out.
//
//   wordpiece_cli --vocab=FILE [--max_tokens=N] [--timing] < texts
//
// Reads texts from stdin, each as its byte length in decimal, a newline and
// the bytes (so a text may hold any byte, NUL and newlines included), and
// writes, for each, one line of space-separated ids ([CLS] ... [SEP]).
// --max_tokens truncates as tokenizers' max_length does (0, the default,
// keeps every id).

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "cli/flags.h"
#include "tokenizer/runtime/wordpiece_tokenizer.h"

namespace llm::tokenizer {
namespace {

constexpr std::string_view kUsage =
    "usage: wordpiece_cli --vocab=FILE [--max_tokens=N] [--timing] "
    "< (LENGTH \\n BYTES)...\n";

int UsageError(const std::string& message) {
  std::cerr << "wordpiece_cli: " << message << "\n" << kUsage;
  return 2;
}

int Main(int argc, char** argv) {
  cli::FlagSet flags("wordpiece_cli", std::string(kUsage));
  flags.Value("vocab").Value("max_tokens").Bool("timing").Bool("help");
  std::string error;
  const bool parsed = flags.Parse(argc, argv, &error);
  if (flags.help()) {
    std::cout << kUsage;
    return 0;
  }
  if (!parsed) return UsageError(error);
  const std::string vocab_path = flags.Get("vocab");
  const bool timing = flags.On("timing");
  size_t max_tokens = 0;
  if (flags.Has("max_tokens")) {
    const std::string value = flags.Get("max_tokens");
    char* end = nullptr;
    const unsigned long long n = std::strtoull(value.c_str(), &end, 10);
    if (value.empty() || *end != '\0' || n == 1) {
      return UsageError("--max_tokens must be 0 (no limit) or at least 2");
    }
    max_tokens = n;
  }
  if (vocab_path.empty()) return UsageError("--vocab=FILE is required");
  const auto tokenizer = WordPieceTokenizer::FromFile(vocab_path, &error);
  if (!tokenizer) {
    std::cerr << "wordpiece_cli: " << error << "\n";
    return 1;
  }
  const std::string input((std::istreambuf_iterator<char>(std::cin)),
                          std::istreambuf_iterator<char>());
  const auto start = std::chrono::steady_clock::now();
  std::string out;
  size_t texts = 0, ids_total = 0;
  const std::string_view all(input);
  for (size_t position = 0; position < all.size();) {
    const size_t newline = all.find('\n', position);
    const std::string length_text(all.substr(position, newline - position));
    char* end = nullptr;
    const unsigned long long length =
        std::strtoull(length_text.c_str(), &end, 10);
    if (newline == std::string_view::npos || length_text.empty() ||
        *end != '\0' || length > all.size() - newline - 1) {
      std::cerr << "wordpiece_cli: malformed input at byte " << position
                << ": expected LENGTH\\n then LENGTH bytes\n";
      return 2;
    }
    const std::vector<int32_t> ids =
        tokenizer->Encode(all.substr(newline + 1, length), max_tokens);
    for (size_t i = 0; i < ids.size(); ++i) {
      if (i > 0) out.push_back(' ');
      out.append(std::to_string(ids[i]));
    }
    out.push_back('\n');
    ++texts;
    ids_total += ids.size();
    position = newline + 1 + length;
  }
  const std::chrono::duration<double> seconds =
      std::chrono::steady_clock::now() - start;
  std::fwrite(out.data(), 1, out.size(), stdout);
  if (timing) {
    std::fprintf(stderr,
                 "encoded %zu texts, %zu bytes, into %zu ids in %.1f ms "
                 "(%.2f MB/s)\n",
                 texts, input.size(), ids_total, seconds.count() * 1e3,
                 input.size() / 1e6 / seconds.count());
  }
  return 0;
}

}  // namespace
}  // namespace llm::tokenizer

int main(int argc, char** argv) {
  std::ios::sync_with_stdio(false);
  return llm::tokenizer::Main(argc, argv);
}
