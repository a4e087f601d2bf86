#include "rag/runtime/flat_search.h"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace llm::rag {
namespace {

// As in runtime/llama_kernels.cc: on x86-64 the loops are compiled for the
// baseline and for x86-64-v3 (AVX2, F16C) and the loader picks one per CPU.
#if defined(__x86_64__) && defined(__GLIBC__) && !defined(__clang__)
#define RAG_MULTIVERSIONED \
  __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define RAG_MULTIVERSIONED
#endif

// Eight lanes, spelled with the GCC/Clang vector extension: AVX2 registers
// on x86-64-v3, pairs of SSE/NEON registers elsewhere.
constexpr size_t kLanes = 8;
typedef float Floats __attribute__((vector_size(kLanes * sizeof(float))));
typedef int8_t Int8s __attribute__((vector_size(kLanes)));
typedef uint16_t Halves __attribute__((vector_size(kLanes * sizeof(uint16_t))));
typedef uint32_t Words __attribute__((vector_size(kLanes * sizeof(uint32_t))));
typedef int32_t Ints __attribute__((vector_size(kLanes * sizeof(int32_t))));

template <typename V>
V Load(const void* at) {
  V value;
  std::memcpy(&value, at, sizeof(V));
  return value;
}

// IEEE binary16 -> binary32, exact for every finite half (the index writer
// stores no infinities or NaNs): the magnitude's bits moved into a float's
// place and scaled by 2^112 re-bias the exponent, subnormals included.
// Integer and float vector ops only, so it vectorises on any target.
Floats HalvesToFloats(Halves halves) {
  const Words h = __builtin_convertvector(halves, Words);
  const Words magnitude = (h & 0x7fffu) << 13;
  const Words sign = (h & 0x8000u) << 16;
  // A C-style cast between vector types of one size reinterprets the bits.
  const Floats scaled = (Floats)magnitude * 0x1p112f;
  return (Floats)((Words)scaled | sign);
}

float Sum(Floats v) {
  float total = 0;
  for (size_t i = 0; i < kLanes; ++i) total += v[i];
  return total;
}

RAG_MULTIVERSIONED
void ScoreFp32(const float* vectors, size_t count, size_t dim,
               const float* query, float* scores) {
  const size_t body = dim - dim % kLanes;
  for (size_t row = 0; row < count; ++row) {
    const float* v = vectors + row * dim;
    Floats acc = {};
    for (size_t i = 0; i < body; i += kLanes) {
      acc += Load<Floats>(v + i) * Load<Floats>(query + i);
    }
    float score = Sum(acc);
    for (size_t i = body; i < dim; ++i) score += v[i] * query[i];
    scores[row] = score;
  }
}

RAG_MULTIVERSIONED
void ScoreFp16(const uint16_t* vectors, size_t count, size_t dim,
               const float* query, float* scores) {
  const size_t body = dim - dim % kLanes;
  for (size_t row = 0; row < count; ++row) {
    const uint16_t* v = vectors + row * dim;
    Floats acc = {};
    for (size_t i = 0; i < body; i += kLanes) {
      acc += HalvesToFloats(Load<Halves>(v + i)) * Load<Floats>(query + i);
    }
    float score = Sum(acc);
    for (size_t i = body; i < dim; ++i) {
      Halves one = {v[i]};
      score += HalvesToFloats(one)[0] * query[i];
    }
    scores[row] = score;
  }
}

RAG_MULTIVERSIONED
void ScoreInt8(const int8_t* vectors, const float* scales, size_t count,
               size_t dim, const float* query, float* scores) {
  const size_t body = dim - dim % kLanes;
  for (size_t row = 0; row < count; ++row) {
    const int8_t* v = vectors + row * dim;
    Floats acc = {};
    for (size_t i = 0; i < body; i += kLanes) {
      // Through int32: GCC widens int8 -> int32 -> float in two vector
      // instructions, but scalarises a direct int8 -> float conversion.
      const Ints wide = __builtin_convertvector(Load<Int8s>(v + i), Ints);
      acc += __builtin_convertvector(wide, Floats) * Load<Floats>(query + i);
    }
    float score = Sum(acc);
    for (size_t i = body; i < dim; ++i)
      score += static_cast<float>(v[i]) * query[i];
    scores[row] = scales[row] * score;
  }
}

}  // namespace

void ScoreAll(const FlatIndex& index, const float* query, float* scores) {
  const size_t count = index.size(), dim = index.dim();
  switch (index.vector_type()) {
    case VectorType::kFp32:
      ScoreFp32(static_cast<const float*>(index.vectors()), count, dim, query,
                scores);
      break;
    case VectorType::kFp16:
      ScoreFp16(static_cast<const uint16_t*>(index.vectors()), count, dim,
                query, scores);
      break;
    case VectorType::kInt8:
      ScoreInt8(static_cast<const int8_t*>(index.vectors()), index.scales(),
                count, dim, query, scores);
      break;
  }
}

std::vector<SearchHit> SearchTopK(const FlatIndex& index, const float* query,
                                  size_t k) {
  std::vector<float> scores(index.size());
  ScoreAll(index, query, scores.data());
  std::vector<uint32_t> order(index.size());
  std::iota(order.begin(), order.end(), 0u);
  k = std::min(k, order.size());
  std::partial_sort(order.begin(), order.begin() + k, order.end(),
                    [&](uint32_t a, uint32_t b) {
                      return scores[a] != scores[b] ? scores[a] > scores[b]
                                                    : a < b;
                    });
  std::vector<SearchHit> hits(k);
  for (size_t i = 0; i < k; ++i) hits[i] = {order[i], scores[order[i]]};
  return hits;
}

}  // namespace llm::rag
