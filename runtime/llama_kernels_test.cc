// llama::custom_sdpa.out against a double-precision reference, and the
// promise its bits rest on: a row's attention does not depend on how many
// rows its call has or on the thread count. Speculative decoding relies on
// it: a verify call must score a token exactly as a one-token step would.
#include "runtime/llama_kernels.h"

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/core/portable_type/tensor_impl.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "runtime/threadpool_control.h"

namespace llm {
namespace {

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::runtime::EValue;

// A contiguous float32 tensor over caller-owned data, of any rank.
class FloatTensor {
 public:
  FloatTensor(std::vector<TensorImpl::SizesType> sizes, float* data)
      : sizes_(std::move(sizes)),
        dim_order_(sizes_.size()),
        strides_(sizes_.size()),
        impl_(ScalarType::Float, static_cast<ssize_t>(sizes_.size()),
              sizes_.data(), data, Order(), Strides()) {}
  Tensor tensor() { return Tensor(&impl_); }

 private:
  TensorImpl::DimOrderType* Order() {
    for (size_t d = 0; d < dim_order_.size(); ++d) {
      dim_order_[d] = static_cast<TensorImpl::DimOrderType>(d);
    }
    return dim_order_.data();
  }
  TensorImpl::StridesType* Strides() {
    TensorImpl::StridesType stride = 1;
    for (size_t d = sizes_.size(); d-- > 0;) {
      strides_[d] = stride;
      stride *= sizes_[d];
    }
    return strides_.data();
  }
  std::vector<TensorImpl::SizesType> sizes_;
  std::vector<TensorImpl::DimOrderType> dim_order_;
  std::vector<TensorImpl::StridesType> strides_;
  TensorImpl impl_;
};

struct Case {
  int q_heads = 6, kv_heads = 2, head_dim = 40, capacity = 300;
  float spread = 1.0f;  // scores grow with it: 8 makes most weights underflow
};

struct Caches {
  std::vector<float> k, v;
};

Caches RandomCaches(const Case& c, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  Caches caches;
  const size_t n = static_cast<size_t>(c.capacity) * c.kv_heads * c.head_dim;
  for (size_t i = 0; i < n; ++i) caches.k.push_back(u(rng) * c.spread);
  for (size_t i = 0; i < n; ++i) caches.v.push_back(u(rng));
  return caches;
}

std::vector<float> RandomQuery(const Case& c, int seq, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::vector<float> q(static_cast<size_t>(seq) * c.q_heads * c.head_dim);
  for (float& x : q) x = u(rng) * c.spread;
  return q;
}

// Runs the registered kernel: causal from start_pos, or with `mask`
// ([seq, mask_keys] additive) when it is not empty.
std::vector<float> Sdpa(const Case& c, std::vector<float> q, Caches& caches,
                        int seq, int start_pos, std::vector<float> mask = {},
                        int mask_keys = 0) {
  EXPECT_EQ(RegisterLlamaKernels(), "");
  auto op = executorch::runtime::get_op_function_from_registry(
      "llama::custom_sdpa.out");
  EXPECT_TRUE(op.ok());
  std::vector<float> out(q.size(), std::nanf(""));
  FloatTensor query({1, seq, c.q_heads, c.head_dim}, q.data());
  FloatTensor k({1, c.capacity, c.kv_heads, c.head_dim}, caches.k.data());
  FloatTensor v({1, c.capacity, c.kv_heads, c.head_dim}, caches.v.data());
  FloatTensor o({1, seq, c.q_heads, c.head_dim}, out.data());
  FloatTensor m({seq, mask_keys}, mask.data());
  EValue args[9] = {
      EValue(query.tensor()),
      EValue(k.tensor()),
      EValue(v.tensor()),
      EValue(static_cast<int64_t>(start_pos)),
      mask.empty() ? EValue() : EValue(m.tensor()),
      EValue(0.0),
      EValue(mask.empty()),
      EValue(),
      EValue(o.tensor()),
  };
  EValue* stack[9];
  for (int i = 0; i < 9; ++i) stack[i] = &args[i];
  static std::vector<uint8_t> temp(size_t{8} << 20);
  executorch::runtime::MemoryAllocator allocator(
      static_cast<uint32_t>(temp.size()), temp.data());
  executorch::runtime::KernelRuntimeContext ctx(nullptr, &allocator);
  (*op)(ctx, executorch::runtime::Span<EValue*>(stack, 9));
  EXPECT_EQ(ctx.failure_state(), executorch::runtime::Error::Ok);
  return out;
}

// softmax(q k^T / sqrt(d) + mask) v in double, for row (i, h).
std::vector<double> Reference(const Case& c, const std::vector<float>& q,
                              const Caches& caches, int i, int h, int keys,
                              const float* mask_row) {
  const int kv_h = h / (c.q_heads / c.kv_heads);
  const double scale = 1.0 / std::sqrt(static_cast<double>(c.head_dim));
  std::vector<double> scores(keys);
  double top = -std::numeric_limits<double>::infinity();
  for (int j = 0; j < keys; ++j) {
    double dot = 0;
    for (int d = 0; d < c.head_dim; ++d) {
      dot +=
          static_cast<double>(
              q[(static_cast<size_t>(i) * c.q_heads + h) * c.head_dim + d]) *
          caches
              .k[(static_cast<size_t>(j) * c.kv_heads + kv_h) * c.head_dim + d];
    }
    scores[j] = dot * scale + (mask_row ? mask_row[j] : 0.0f);
    top = std::max(top, scores[j]);
  }
  std::vector<double> out(c.head_dim, 0.0);
  if (std::isinf(top)) return out;
  double total = 0;
  for (int j = 0; j < keys; ++j) total += std::exp(scores[j] - top);
  for (int j = 0; j < keys; ++j) {
    const double w = std::exp(scores[j] - top) / total;
    for (int d = 0; d < c.head_dim; ++d) {
      out[d] +=
          w *
          caches
              .v[(static_cast<size_t>(j) * c.kv_heads + kv_h) * c.head_dim + d];
    }
  }
  return out;
}

void ExpectNearReference(const Case& c, const std::vector<float>& q,
                         const Caches& caches, const std::vector<float>& out,
                         int seq, int start_pos, const float* mask,
                         int mask_keys, double tolerance = 2e-6) {
  double worst = 0;
  for (int i = 0; i < seq; ++i) {
    for (int h = 0; h < c.q_heads; ++h) {
      const int keys = mask ? mask_keys : start_pos + i + 1;
      const auto want = Reference(c, q, caches, i, h, keys,
                                  mask ? mask + i * mask_keys : nullptr);
      for (int d = 0; d < c.head_dim; ++d) {
        const float got =
            out[(static_cast<size_t>(i) * c.q_heads + h) * c.head_dim + d];
        worst = std::max(worst, std::abs(got - want[d]));
      }
    }
  }
  EXPECT_LT(worst, tolerance) << "worst absolute difference from the reference";
}

bool SameBits(const float* a, const float* b, size_t n) {
  return std::memcmp(a, b, n * sizeof(float)) == 0;
}

TEST(CustomSdpa, CausalMatchesReferenceAcrossBlocks) {
  // 250 keys span four 64-key blocks; head_dim 40 leaves 8 dimensions past
  // the 32-wide loop, and 3 heads per KV head a pair and a single.
  const Case c;
  Caches caches = RandomCaches(c, 1);
  for (int start_pos : {0, 5, 60, 245}) {
    const auto q = RandomQuery(c, 5, 2);
    ExpectNearReference(c, q, caches, Sdpa(c, q, caches, 5, start_pos), 5,
                        start_pos, nullptr, 0);
  }
}

TEST(CustomSdpa, LargeScoresUnderflowCleanly) {
  Case c;
  c.spread = 8.0f;  // scores up to ~400: most weights are below e^-87
  Caches caches = RandomCaches(c, 3);
  const auto q = RandomQuery(c, 3, 4);
  // A float score near 400 is itself off by up to 2e-5 (half an ulp), and
  // so is its weight, relatively: the tolerance follows the scores, not exp.
  ExpectNearReference(c, q, caches, Sdpa(c, q, caches, 3, 200), 3, 200, nullptr,
                      0, 5e-5);
}

TEST(CustomSdpa, MaskedKeysWeighNothing) {
  const Case c;
  Caches caches = RandomCaches(c, 5);
  const int seq = 3, keys = 130;
  const auto q = RandomQuery(c, seq, 6);
  std::vector<float> mask(seq * keys, 0.0f);
  const float inf = std::numeric_limits<float>::infinity();
  for (int j = 0; j < keys; j += 3) mask[j] = -inf;  // row 0: every third key
  for (int j = 64; j < 128; ++j) mask[keys + j] = -inf;  // row 1: a whole block
  for (int j = 0; j < keys; ++j) mask[2 * keys + j] = -inf;  // row 2: all
  const auto out = Sdpa(c, q, caches, seq, 0, mask, keys);
  ExpectNearReference(c, q, caches, out, seq, 0, mask.data(), keys);
  const size_t row = static_cast<size_t>(c.q_heads) * c.head_dim;
  for (size_t d = 2 * row; d < 3 * row; ++d) ASSERT_EQ(out[d], 0.0f);
}

TEST(CustomSdpa, RowBitsDoNotDependOnTheCallOrThreads) {
  const Case c;
  Caches caches = RandomCaches(c, 7);
  const int seq = 5, start_pos = 200;
  const auto q = RandomQuery(c, seq, 8);
  const size_t row = static_cast<size_t>(c.q_heads) * c.head_dim;
  SetThreadCount(1);
  const auto one_thread = Sdpa(c, q, caches, seq, start_pos);
  SetThreadCount(2);
  const auto two_threads = Sdpa(c, q, caches, seq, start_pos);
  EXPECT_TRUE(SameBits(one_thread.data(), two_threads.data(), seq * row));
  // Each row fed alone, as a one-token decode step feeds it.
  for (int i = 0; i < seq; ++i) {
    for (int threads : {1, 2}) {
      SetThreadCount(threads);
      std::vector<float> q_row(q.begin() + i * row, q.begin() + (i + 1) * row);
      const auto alone = Sdpa(c, q_row, caches, 1, start_pos + i);
      EXPECT_TRUE(SameBits(alone.data(), one_thread.data() + i * row, row))
          << "row " << i << " with " << threads << " threads";
    }
  }
}

}  // namespace
}  // namespace llm
