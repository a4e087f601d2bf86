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
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "rag/runtime/flat_index.h"
#include "rag/runtime/flat_search.h"

namespace {

int Fail(const std::string& message) {
  std::fprintf(stderr, "rag_search: error: %s\n", message.c_str());
  return 2;
}

bool Flag(const std::string& arg, const char* name, std::string* value) {
  const std::string prefix = std::string("--") + name + "=";
  if (arg.rfind(prefix, 0) != 0) return false;
  *value = arg.substr(prefix.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::string index_path, queries_path, k_text = "5", repeat_text = "0";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (!Flag(arg, "index", &index_path) &&
        !Flag(arg, "queries", &queries_path) && !Flag(arg, "k", &k_text) &&
        !Flag(arg, "repeat", &repeat_text)) {
      return Fail("unknown argument '" + arg +
                  "' (flags: --index --queries --k --repeat)");
    }
  }
  if (index_path.empty() || queries_path.empty())
    return Fail("--index and --queries are required");
  char* k_end = nullptr;
  char* repeat_end = nullptr;
  const long k = std::strtol(k_text.c_str(), &k_end, 10);
  const long repeat = std::strtol(repeat_text.c_str(), &repeat_end, 10);
  if (k_text.empty() || *k_end != '\0' || repeat_text.empty() ||
      *repeat_end != '\0' || k <= 0 || repeat < 0) {
    return Fail("--k must be a whole number > 0 and --repeat one >= 0, not '" +
                k_text + "' and '" + repeat_text + "'");
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
    const auto hits = llm::rag::SearchTopK(*index, query, k);
    for (long r = 0; r < repeat; ++r) {
      const auto start = std::chrono::steady_clock::now();
      const auto again = llm::rag::SearchTopK(*index, query, k);
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
