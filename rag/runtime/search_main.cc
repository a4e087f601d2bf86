// rag_search: exact top-k over a flat index for given query vectors, as the
// device runs it. Used to check the ranking against LanceDB's and to time
// the search.
//
//   rag_search --index=austen_int8.flat --queries=q.f32 --k=5 [--repeat=N]
//
// --queries holds raw little-endian float32 rows of the index's dim (what
// //rag/runtime:embed writes). Prints one JSON line per query:
// {"ids": [...], "scores": [...]}, and with --repeat the median search time
// per query on stderr as JSON. Exit codes: 0 ok, 2 bad input.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "cli/flags.h"
#include "rag/runtime/flat_index.h"
#include "rag/runtime/flat_search.h"

namespace {

constexpr char kUsage[] =
    "usage: rag_search --index=FLAT --queries=F32 [--k=5] [--repeat=0]\n";

int Fail(const std::string& message) {
  std::fprintf(stderr, "rag_search: error: %s\n", message.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  llm::cli::FlagSet flags("rag_search", kUsage);
  flags.Value("index").Value("queries").Value("k").Value("repeat");
  std::string parse_error;
  const bool parsed = flags.Parse(argc, argv, &parse_error);
  if (flags.help()) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (!parsed) return Fail(parse_error);
  const std::string index_path = flags.Get("index");
  const std::string queries_path = flags.Get("queries");
  if (index_path.empty() || queries_path.empty())
    return Fail("--index and --queries are required");
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  int64_t k = 0, repeat = 0;
  if (!flags.Integer("k", 5, 1, kMax, &k, &parse_error) ||
      !flags.Integer("repeat", 0, 0, kMax, &repeat, &parse_error)) {
    return Fail(parse_error);
  }

  std::string error;
  auto index = llm::rag::FlatIndex::Open(index_path, &error);
  if (!index) return Fail(error);
  std::ifstream in(queries_path, std::ios::binary);
  if (!in) return Fail("cannot read --queries=" + queries_path);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  const size_t row_bytes = sizeof(float) * index->dim();
  if (bytes.empty() || bytes.size() % row_bytes != 0) {
    return Fail(queries_path + " holds " + std::to_string(bytes.size()) +
                " bytes, not a whole number of " +
                std::to_string(index->dim()) + "-float rows");
  }
  const size_t count = bytes.size() / row_bytes;
  std::vector<float> queries(count * index->dim());
  std::copy(bytes.begin(), bytes.end(),
            reinterpret_cast<char*>(queries.data()));

  std::vector<double> times_ms;
  for (size_t q = 0; q < count; ++q) {
    const float* query = queries.data() + q * index->dim();
    const auto hits =
        llm::rag::SearchTopK(*index, query, static_cast<size_t>(k));
    for (int64_t r = 0; r < repeat; ++r) {
      const auto start = std::chrono::steady_clock::now();
      const auto again =
          llm::rag::SearchTopK(*index, query, static_cast<size_t>(k));
      times_ms.push_back(std::chrono::duration<double, std::milli>(
                             std::chrono::steady_clock::now() - start)
                             .count());
      if (again.size() != hits.size()) return Fail("unstable search");
    }
    std::string ids, scores;
    for (const auto& hit : hits) {
      ids += (ids.empty() ? "" : ", ") + std::to_string(hit.chunk);
      char score[32];
      std::snprintf(score, sizeof(score), "%.9g", hit.score);
      scores += (scores.empty() ? "" : ", ") + std::string(score);
    }
    std::printf("{\"ids\": [%s], \"scores\": [%s]}\n", ids.c_str(),
                scores.c_str());
  }
  if (!times_ms.empty()) {
    std::sort(times_ms.begin(), times_ms.end());
    std::fprintf(stderr,
                 "{\"search_ms_median\": %.4f, \"search_ms_p95\": %.4f, "
                 "\"chunks\": %u, \"vector_type\": \"%s\"}\n",
                 times_ms[times_ms.size() / 2],
                 times_ms[times_ms.size() * 95 / 100], index->size(),
                 llm::rag::VectorTypeName(index->vector_type()));
  }
  return 0;
}
