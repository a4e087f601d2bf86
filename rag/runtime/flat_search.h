// Exact top-k over a FlatIndex: the dot product of the query with every
// stored vector (cosine similarity, as the embedder's vectors are unit
// length), best first. The same ranking LanceDB computes over the same
// vectors on the host (//rag:lancedb_parity_test).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "rag/runtime/flat_index.h"

namespace llm::rag {

struct SearchHit {
  uint32_t chunk = 0;
  float score = 0;  // dot product; for int8, scale * (query . q)
};

// `query` has index.dim() floats. Returns min(k, index.size()) hits, highest
// score first, equal scores by lower chunk id. Kernels are SIMD (AVX2 where
// the CPU has it, NEON on arm64) and the scan is single-threaded: at the
// sizes an on-device index has (~10^4 chunks) it takes well under a
// millisecond.
std::vector<SearchHit> SearchTopK(const FlatIndex& index, const float* query,
                                  size_t k);

// All scores, in chunk order (for tests and benchmarks).
void ScoreAll(const FlatIndex& index, const float* query, float* scores);

}  // namespace llm::rag
