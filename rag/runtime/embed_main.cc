// embed: sentence embeddings of a JSON Lines file, for building a RAG index.
//
//   embed --pte=minilm_l6_fp32.pte --vocab=minilm_l6_vocab.wpt
//         --input=passages.jsonl --output=vectors.f32 [--stats_json=PATH]
//
// Input: one JSON object per line with a string "text" field (other fields
// are ignored); blank lines are skipped. Output: one row per record, in input
// order, of dim little-endian float32 values (N x dim, no header), each row
// unit-length. Exit codes: 0 success, 1 model or runtime failure, 2 bad flags
// or input.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "cli/flags.h"
#include "rag/runtime/embedder.h"
#include "rag/runtime/jsonl_text.h"
#include "runtime/generation_stats.h"
#include "runtime/runtime_log.h"
#include "runtime/threadpool_control.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the output format is little-endian float32");

namespace llm::rag {
namespace {

constexpr int kRuntimeError = 1;
constexpr int kUsageError = 2;

constexpr const char kUsage[] =
    R"(usage: embed --pte=PTE --vocab=WPT --input=JSONL --output=F32 [flags]

  --pte=PATH          sentence encoder program (//models:minilm_l6_fp32 or _int8)
  --vocab=PATH        its WordPiece file (//models:minilm_l6_vocab)
  --input=PATH        JSON Lines, one {"text": "..."} per line
  --output=PATH       N x dim little-endian float32 rows, unit length
  --stats_json=PATH   timing stats as JSON ("-" = stderr)
  --threads=N         CPU threads [half the cores]
  --verbose           show ExecuTorch's info logs
)";

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

int Usage(const std::string& message) {
  std::cerr << "embed: " << message << "\n\n" << kUsage;
  return kUsageError;
}

struct Stats {
  std::string model_sha256;
  uint32_t threads = 0;
  int64_t dim = 0;
  int64_t max_tokens = 0;
  double load_ms = 0;
  std::vector<double> embed_ms;
  int64_t tokens = 0;
  int64_t truncated_texts = 0;

  std::string ToJson() const {
    std::vector<double> sorted = embed_ms;
    std::sort(sorted.begin(), sorted.end());
    const auto percentile = [&](double p) {
      if (sorted.empty()) return 0.0;
      const size_t rank = static_cast<size_t>(p / 100.0 * sorted.size());
      return sorted[std::min(rank, sorted.size() - 1)];
    };
    const double total = std::accumulate(embed_ms.begin(), embed_ms.end(), 0.0);
    const size_t n = embed_ms.size();
    std::ostringstream out;
    out.setf(std::ios::fixed);
    out.precision(3);
    out << "{\n"
        << "  \"model_sha256\": \"" << model_sha256 << "\",\n"
        << "  \"platform\": \"" << PlatformName() << "\",\n"
        << "  \"threads\": " << threads << ",\n"
        << "  \"dim\": " << dim << ",\n"
        << "  \"max_tokens\": " << max_tokens << ",\n"
        << "  \"texts\": " << n << ",\n"
        << "  \"tokens\": " << tokens << ",\n"
        << "  \"truncated_texts\": " << truncated_texts << ",\n"
        << "  \"load_ms\": " << load_ms << ",\n"
        << "  \"embed_ms_total\": " << total << ",\n"
        << "  \"ms_per_embed\": " << (n ? total / n : 0.0) << ",\n"
        << "  \"ms_per_embed_p50\": " << percentile(50) << ",\n"
        << "  \"ms_per_embed_p95\": " << percentile(95) << ",\n"
        << "  \"embeds_per_s\": " << (total > 0 ? n * 1e3 / total : 0.0)
        << ",\n"
        << "  \"tokens_per_s\": " << (total > 0 ? tokens * 1e3 / total : 0.0)
        << ",\n"
        << "  \"peak_rss_mb\": " << PeakRssMb() << "\n"
        << "}\n";
    return out.str();
  }
};

int Main(int argc, char** argv) {
  cli::FlagSet flags("embed", kUsage);
  flags.Value("pte")
      .Value("vocab")
      .Value("input")
      .Value("output")
      .Value("threads")
      .Value("stats_json")
      .Bool("verbose")
      .Bool("help");
  std::string parse_error;
  const bool parsed = flags.Parse(argc, argv, &parse_error);
  if (flags.help()) {
    std::cout << kUsage;
    return 0;
  }
  if (!parsed) return Usage(parse_error);
  for (const char* required : {"pte", "vocab", "input", "output"}) {
    if (flags.Get(required).empty()) {
      return Usage("--" + std::string(required) + "=PATH is required");
    }
  }
  SetRuntimeLogVerbose(flags.On("verbose"));
  int64_t threads = 0;
  std::string number_error;
  if (!flags.Integer("threads", DefaultThreadCount(), 1, 1024, &threads,
                     &number_error)) {
    return Usage(number_error);
  }

  std::ifstream input(flags.Get("input"));
  if (!input) {
    return Usage("cannot read --input=" + flags.Get("input") +
                 "; give a JSON Lines file with one {\"text\": ...} per line");
  }
  std::vector<std::string> texts;
  std::string line;
  for (size_t number = 1; std::getline(input, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::string error;
    std::optional<std::string> text = ReadTextField(line, &error);
    if (!text) {
      return Usage(flags.Get("input") + ":" + std::to_string(number) + ": " +
                   error +
                   "; each line must be a JSON object with a string "
                   "\"text\" field");
    }
    texts.push_back(std::move(*text));
  }

  Stats stats;
  // Before loading: XNNPACK takes the pool's threads when the program loads,
  // and resizing the pool afterwards hangs it.
  stats.threads = SetThreadCount(static_cast<uint32_t>(threads));
  const auto load_start = Clock::now();
  std::string error;
  std::unique_ptr<Embedder> embedder =
      Embedder::Create(flags.Get("pte"), flags.Get("vocab"), &error);
  if (!embedder) {
    std::cerr << "embed: " << error << "\n";
    return kRuntimeError;
  }
  stats.load_ms = MsSince(load_start);
  stats.model_sha256 = embedder->model_sha256();
  stats.dim = embedder->dim();
  stats.max_tokens = embedder->max_tokens();

  std::ofstream output(flags.Get("output"), std::ios::binary | std::ios::trunc);
  if (!output) {
    return Usage("cannot write --output=" + flags.Get("output"));
  }
  const size_t unlimited = 0;
  for (const std::string& text : texts) {
    const auto start = Clock::now();
    std::vector<int32_t> ids = embedder->tokenizer().Encode(text, unlimited);
    if (static_cast<int64_t>(ids.size()) > embedder->max_tokens()) {
      // What Encode(text, max_tokens) gives: the first ids, then [SEP].
      ++stats.truncated_texts;
      ids.resize(static_cast<size_t>(embedder->max_tokens()));
      ids.back() = embedder->tokenizer().sep_id();
    }
    const std::vector<float> vector = embedder->EmbedIds(ids, &error);
    if (vector.empty()) {
      std::cerr << "embed: text " << stats.embed_ms.size() + 1 << ": " << error
                << "\n";
      return kRuntimeError;
    }
    stats.embed_ms.push_back(MsSince(start));
    stats.tokens += static_cast<int64_t>(ids.size());
    output.write(reinterpret_cast<const char*>(vector.data()),
                 static_cast<std::streamsize>(vector.size() * sizeof(float)));
  }
  output.close();
  if (!output) {
    std::cerr << "embed: writing " << flags.Get("output") << " failed\n";
    return kRuntimeError;
  }

  if (flags.Has("stats_json")) {
    const std::string json = stats.ToJson();
    if (flags.Get("stats_json") == "-") {
      std::cerr << json;
    } else {
      std::ofstream stats_file(flags.Get("stats_json"));
      stats_file << json;
      if (!stats_file) {
        std::cerr << "embed: cannot write " << flags.Get("stats_json") << "\n";
        return kRuntimeError;
      }
    }
  }
  return 0;
}

}  // namespace
}  // namespace llm::rag

int main(int argc, char** argv) { return llm::rag::Main(argc, argv); }
