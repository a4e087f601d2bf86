// FlatIndex and SearchTopK on real indexes (//rag:austen_int8 and
// //rag:austen_fp32, the two Austen novels; //rag:opening_fp16): the header,
// exact top-k against a scalar reference, and clear errors for damaged files.
#include "rag/runtime/flat_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "rag/runtime/flat_search.h"

namespace llm::rag {
namespace {

std::unique_ptr<FlatIndex> OpenOrDie(const char* variable) {
  std::string error;
  auto index = FlatIndex::Open(std::getenv(variable), &error);
  EXPECT_NE(index, nullptr) << error;
  return index;
}

// The stored vector, de-quantized, in double precision.
std::vector<double> Row(const FlatIndex& index, uint32_t row) {
  std::vector<double> out(index.dim());
  for (uint32_t i = 0; i < index.dim(); ++i) {
    const size_t at = static_cast<size_t>(row) * index.dim() + i;
    switch (index.vector_type()) {
      case VectorType::kFp32:
        out[i] = static_cast<const float*>(index.vectors())[at];
        break;
      case VectorType::kInt8:
        out[i] = index.scales()[row] *
                 static_cast<double>(
                     static_cast<const int8_t*>(index.vectors())[at]);
        break;
      case VectorType::kFp16: {
        // IEEE binary16, decoded the slow, obvious way.
        const uint16_t h = static_cast<const uint16_t*>(index.vectors())[at];
        const int exponent = (h >> 10) & 31;
        const double fraction = h & 1023;
        const double magnitude =
            exponent == 0 ? std::ldexp(fraction, -24)
                          : std::ldexp(1024 + fraction, exponent - 25);
        out[i] = (h & 0x8000) ? -magnitude : magnitude;
        break;
      }
    }
  }
  return out;
}

void ExpectExactTopK(const FlatIndex& index) {
  std::mt19937 rng(3);
  std::normal_distribution<float> normal;
  for (int trial = 0; trial < 20; ++trial) {
    std::vector<float> query(index.dim());
    for (float& x : query) x = normal(rng);
    std::vector<double> reference(index.size());
    for (uint32_t row = 0; row < index.size(); ++row) {
      const std::vector<double> v = Row(index, row);
      reference[row] =
          std::inner_product(v.begin(), v.end(), query.begin(), 0.0);
    }
    std::vector<uint32_t> order(index.size());
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      return reference[a] > reference[b];
    });
    const auto hits = SearchTopK(index, query.data(), 10);
    ASSERT_EQ(hits.size(), 10u);
    for (size_t i = 0; i < hits.size(); ++i) {
      EXPECT_NEAR(hits[i].score, reference[order[i]], 1e-4);
      if (hits[i].chunk != order[i]) {
        // Only a near-tie may be ordered differently by float rounding.
        EXPECT_NEAR(reference[hits[i].chunk], reference[order[i]], 1e-5);
      }
      if (i > 0) {
        EXPECT_GE(hits[i - 1].score, hits[i].score);
      }
    }
  }
}

TEST(FlatIndexTest, HeaderAndChunksOfTheAustenIndex) {
  auto index = OpenOrDie("INDEX_INT8");
  ASSERT_NE(index, nullptr);
  EXPECT_EQ(index->dim(), 384u);
  EXPECT_EQ(index->vector_type(), VectorType::kInt8);
  EXPECT_EQ(index->document_count(), 2u);
  EXPECT_EQ(index->embedder_sha256().size(), 64u);
  EXPECT_GT(index->size(), 1000u);
  uint64_t previous_start = 0;
  for (uint32_t i = 0; i < index->size(); ++i) {
    const ChunkInfo chunk = index->chunk(i);
    EXPECT_EQ(chunk.text.size(), chunk.byte_end - chunk.byte_start);
    EXPECT_LE(chunk.tokens, index->chunk_tokens() - 2);
    if (i > 0 && chunk.document == index->chunk(i - 1).document) {
      EXPECT_GT(chunk.byte_start, previous_start);
    }
    previous_start = chunk.byte_start;
  }
  EXPECT_EQ(index->document_name(index->chunk(0).document), "persuasion.txt");
}

TEST(FlatIndexTest, Int8SearchIsExact) {
  auto index = OpenOrDie("INDEX_INT8");
  ASSERT_NE(index, nullptr);
  ExpectExactTopK(*index);
}

TEST(FlatIndexTest, Fp32SearchIsExactAndFindsStoredVectors) {
  auto index = OpenOrDie("INDEX_FP32");
  ASSERT_NE(index, nullptr);
  ExpectExactTopK(*index);
  for (uint32_t row : {0u, index->size() / 2, index->size() - 1}) {
    const float* v =
        static_cast<const float*>(index->vectors()) + size_t{row} * 384;
    const auto hits = SearchTopK(*index, v, 1);
    // Overlapping chunks can be near-duplicates; the top score is the
    // vector's own (unit length).
    EXPECT_NEAR(hits[0].score, 1.0, 1e-3);
  }
  const auto all = SearchTopK(
      *index, static_cast<const float*>(index->vectors()), index->size() + 5);
  EXPECT_EQ(all.size(), index->size()) << "k beyond the index is clamped";
}

TEST(FlatIndexTest, Fp16SearchIsExact) {
  auto index = OpenOrDie("INDEX_FP16");
  ASSERT_NE(index, nullptr);
  EXPECT_EQ(index->vector_type(), VectorType::kFp16);
  ASSERT_GE(index->size(), 10u);
  ExpectExactTopK(*index);
}

class DamagedIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::ifstream in(std::getenv("INDEX_INT8"), std::ios::binary);
    bytes_.assign(std::istreambuf_iterator<char>(in),
                  std::istreambuf_iterator<char>());
    ASSERT_GT(bytes_.size(), 128u);
  }
  std::string OpenError(const std::string& bytes) {
    const std::string path =
        std::string(std::getenv("TEST_TMPDIR")) + "/damaged.flat";
    std::ofstream(path, std::ios::binary) << bytes;
    std::string error;
    EXPECT_EQ(FlatIndex::Open(path, &error), nullptr);
    return error;
  }
  std::string bytes_;
};

TEST_F(DamagedIndexTest, EachDamageIsNamed) {
  EXPECT_NE(OpenError(bytes_.substr(0, bytes_.size() - 64))
                .find("corrupt or truncated (file size)"),
            std::string::npos);
  EXPECT_NE(OpenError(bytes_.substr(0, 100)).find("too small"),
            std::string::npos);
  std::string bad_magic = bytes_;
  bad_magic[0] = 'X';
  EXPECT_NE(OpenError(bad_magic).find("not a flat index"), std::string::npos);
  std::string future = bytes_;
  future[8] = 9;
  EXPECT_NE(OpenError(future).find("version 9"), std::string::npos);
  std::string bad_chunk = bytes_;
  uint64_t chunks_at = 0;
  std::memcpy(&chunks_at, bad_chunk.data() + 88, 8);
  bad_chunk[chunks_at] = 7;  // document index out of range
  EXPECT_NE(OpenError(bad_chunk).find("chunk 0"), std::string::npos);
  std::string error;
  EXPECT_EQ(FlatIndex::Open("/nonexistent/austen.flat", &error), nullptr);
  EXPECT_NE(error.find("build one with a rag_index target"), std::string::npos)
      << error;
}

}  // namespace
}  // namespace llm::rag
