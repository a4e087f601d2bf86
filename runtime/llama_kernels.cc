// LOCAL IMPLEMENTATION of two ExecuTorch operators, written for this runtime
// (no upstream code is copied). The behaviour it follows, and the files to
// compare against when ExecuTorch is upgraded:
//   * the operator schemas and their Python reference semantics:
//     extension/llm/custom_ops/custom_ops.py and op_sdpa_aot.cpp
//     (llama::custom_sdpa.out, llama::update_cache.out);
//   * the kernels it replaces: extension/llm/custom_ops/op_sdpa.cpp,
//     op_sdpa_impl.h and op_update_cache.cpp, which ship only inside
//     libcustom_ops_aot_lib.so (it needs libtorch);
//   * the tests whose cases ours must agree with: op_sdpa_test.cpp and
//     op_sdpa_with_kv_cache_test.cpp in the same folder.
// Pinned to the executorch wheel's version in tools/cc (EXECUTORCH_VERSION);
// the runtime's parity tests compare every program's output with
// ExecuTorch's Python runtime, which runs the upstream kernels.
#include "runtime/llama_kernels.h"

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/util/tensor_util.h>
#include <executorch/runtime/kernel/kernel_runtime_context.h>
#include <executorch/runtime/kernel/operator_registry.h>
#include <executorch/runtime/kernel/thread_parallel_interface.h>
#include <executorch/runtime/platform/log.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <mutex>

namespace llm {
namespace {

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::Kernel;
using executorch::runtime::KernelRuntimeContext;
using executorch::runtime::Span;

// Fails the kernel with a message the runner's log hook passes on to the user.
#define LLM_KERNEL_CHECK(ctx, cond, ...)  \
  do {                                    \
    if (!(cond)) {                        \
      ET_LOG(Error, __VA_ARGS__);         \
      (ctx).fail(Error::InvalidArgument); \
      return;                             \
    }                                     \
  } while (0)

bool IsFloat4d(const EValue& v) {
  return v.isTensor() && v.toTensor().dim() == 4 &&
         v.toTensor().scalar_type() == ScalarType::Float;
}

// ---------------------------------------------------------------------------
// update_cache: cache[b, start_pos + s] = value[b, s] for every b, s.
void UpdateCacheOut(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  LLM_KERNEL_CHECK(ctx, stack.size() >= 4,
                   "llama::update_cache.out: expected 4 arguments, got %zu",
                   stack.size());
  LLM_KERNEL_CHECK(ctx, IsFloat4d(*stack[0]) && IsFloat4d(*stack[1]),
                   "llama::update_cache.out: value and cache must be 4-d "
                   "float32 tensors");
  const Tensor& value = stack[0]->toTensor();
  Tensor& cache = stack[1]->toTensor();
  LLM_KERNEL_CHECK(ctx, stack[2]->isInt(),
                   "llama::update_cache.out: start_pos must be an int");
  const int64_t start_pos = stack[2]->toInt();
  const int64_t batch = value.size(0), seq = value.size(1);
  const int64_t capacity = cache.size(1);
  LLM_KERNEL_CHECK(ctx,
                   cache.size(0) == batch && cache.size(2) == value.size(2) &&
                       cache.size(3) == value.size(3),
                   "llama::update_cache.out: value [%zd,%zd,%zd,%zd] does not "
                   "fit cache [%zd,%zd,%zd,%zd]",
                   value.size(0), value.size(1), value.size(2), value.size(3),
                   cache.size(0), cache.size(1), cache.size(2), cache.size(3));
  LLM_KERNEL_CHECK(ctx, start_pos >= 0 && start_pos + seq <= capacity,
                   "llama::update_cache.out: positions %lld..%lld are outside "
                   "the KV cache of %lld; the context is full",
                   static_cast<long long>(start_pos),
                   static_cast<long long>(start_pos + seq - 1),
                   static_cast<long long>(capacity));
  const size_t row = static_cast<size_t>(value.size(2) * value.size(3));
  const float* src = value.const_data_ptr<float>();
  float* dst = cache.mutable_data_ptr<float>();
  for (int64_t b = 0; b < batch; ++b) {
    // Rows for consecutive positions are adjacent in both tensors.
    std::memcpy(dst + (b * capacity + start_pos) * row, src + b * seq * row,
                static_cast<size_t>(seq) * row * sizeof(float));
  }
  // `out` is a one-element placeholder the export needs for its data flow.
}

// ---------------------------------------------------------------------------
// custom_sdpa: softmax(q k^T * scale + mask) v over the cached keys, per head,
// with grouped-query heads sharing a KV head.

// On x86-64 the hot loops are compiled twice, for the baseline (SSE2) and for
// x86-64-v3 (AVX2 + FMA), and the loader picks one per CPU (GCC/Clang
// target_clones, an ifunc). arm64 has NEON in its baseline already.
#if defined(__x86_64__) && defined(__GLIBC__) && !defined(__clang__)
#define LLM_MULTIVERSIONED \
  __attribute__((target_clones("arch=x86-64-v3", "default")))
#else
#define LLM_MULTIVERSIONED
#endif

struct SdpaShape {
  int64_t batch, seq, q_heads, kv_heads, head_dim, capacity;
  int64_t start_pos;
  bool causal;
  const float* mask;  // [seq, mask_keys] additive, or null
  int64_t mask_keys;
  float scale;

  int64_t group() const { return q_heads / kv_heads; }
  // Keys query row i attends to: [0, KeyCount(i)).
  int64_t KeyCount(int64_t i) const {
    if (causal) return start_pos + i + 1;
    return mask ? mask_keys : start_pos + seq;
  }
};

// How attention is computed, which fixes its bits. For each query row the
// keys are taken in blocks of kKeyBlock absolute positions. Within a block
// the row's scores are scaled and masked, and the block keeps its own
// maximum m, its sum l of exp(score - m) and its unnormalized output
// acc = sum of exp(score - m) * v, every sum in key order. The blocks are then
// merged in order (the online softmax of flash attention) and the output is
// acc / l. A query-key dot product is summed in one order (eight partial
// sums, then a fixed tree, then the tail). Nothing here depends on how many
// rows a call has, how work is split between threads, or which instruction
// set runs: a row of a 5-token verify call is bit-identical to the same row
// fed alone, and SSE2, AVX2 and NEON agree.
//
// Blocks let every thread work on a long context in a one-token decode step
// (the step has only one (position, KV head) pair per KV head), and keep a
// block's keys and values in L1 while all query heads of the KV head read
// them.
constexpr int64_t kKeyBlock = 64;

// Eight floats as one value: GCC and Clang map it to one AVX2 register, two
// SSE2 or two NEON registers, with the same per-lane IEEE arithmetic on all
// of them. As values (not arrays) the accumulators stay in registers.
typedef float Float8 __attribute__((vector_size(32)));

// The helpers below are inlined into the multiversioned functions, so each
// is compiled for that clone's instruction set (a called helper would be
// baseline SSE2 code).
#define LLM_ALWAYS_INLINE inline __attribute__((always_inline))

LLM_ALWAYS_INLINE Float8 Load8(const float* p) {
  Float8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

LLM_ALWAYS_INLINE void Store8(float* p, Float8 v) {
  std::memcpy(p, &v, sizeof v);
}

LLM_ALWAYS_INLINE float Reduce8(Float8 a) {
  return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

LLM_ALWAYS_INLINE float DotTail(float dot, const float* q, const float* k,
                                int64_t d, int64_t n) {
  for (; d < n; ++d) dot += q[d] * k[d];
  return dot;
}

// One query head with one cached key.
LLM_ALWAYS_INLINE float Dot(const float* q, const float* k, int64_t n) {
  Float8 acc = {};
  int64_t d = 0;
  for (; d + 8 <= n; d += 8) acc += Load8(q + d) * Load8(k + d);
  return DotTail(Reduce8(acc), q, k, d, n);
}

// One query head with four consecutive cached keys, each summed exactly as
// Dot() sums it. One key's sum is a chain of dependent adds; independent
// chains keep the vector unit busy while each waits on its own.
LLM_ALWAYS_INLINE void Dot4(const float* q, const float* k, int64_t stride,
                            int64_t n, float* out) {
  const float* k1 = k + stride;
  const float* k2 = k + 2 * stride;
  const float* k3 = k + 3 * stride;
  Float8 a0 = {}, a1 = {}, a2 = {}, a3 = {};
  int64_t d = 0;
  for (; d + 8 <= n; d += 8) {
    const Float8 x = Load8(q + d);
    a0 += x * Load8(k + d);
    a1 += x * Load8(k1 + d);
    a2 += x * Load8(k2 + d);
    a3 += x * Load8(k3 + d);
  }
  out[0] = DotTail(Reduce8(a0), q, k, d, n);
  out[1] = DotTail(Reduce8(a1), q, k1, d, n);
  out[2] = DotTail(Reduce8(a2), q, k2, d, n);
  out[3] = DotTail(Reduce8(a3), q, k3, d, n);
}

// Two query heads with the same four keys: eight chains, and each key
// loaded once for both heads.
LLM_ALWAYS_INLINE void Dot2x4(const float* q0, const float* q1, const float* k,
                              int64_t stride, int64_t n, float* out0,
                              float* out1) {
  const float* k1 = k + stride;
  const float* k2 = k + 2 * stride;
  const float* k3 = k + 3 * stride;
  Float8 a0 = {}, a1 = {}, a2 = {}, a3 = {};
  Float8 b0 = {}, b1 = {}, b2 = {}, b3 = {};
  int64_t d = 0;
  for (; d + 8 <= n; d += 8) {
    const Float8 x = Load8(q0 + d);
    const Float8 y = Load8(q1 + d);
    Float8 key = Load8(k + d);
    a0 += x * key;
    b0 += y * key;
    key = Load8(k1 + d);
    a1 += x * key;
    b1 += y * key;
    key = Load8(k2 + d);
    a2 += x * key;
    b2 += y * key;
    key = Load8(k3 + d);
    a3 += x * key;
    b3 += y * key;
  }
  out0[0] = DotTail(Reduce8(a0), q0, k, d, n);
  out0[1] = DotTail(Reduce8(a1), q0, k1, d, n);
  out0[2] = DotTail(Reduce8(a2), q0, k2, d, n);
  out0[3] = DotTail(Reduce8(a3), q0, k3, d, n);
  out1[0] = DotTail(Reduce8(b0), q1, k, d, n);
  out1[1] = DotTail(Reduce8(b1), q1, k1, d, n);
  out1[2] = DotTail(Reduce8(b2), q1, k2, d, n);
  out1[3] = DotTail(Reduce8(b3), q1, k3, d, n);
}

// out[0, 32) = sum over keys j, in order, of p[j] * v_j[0, 32): 32 output
// dimensions held in registers rather than re-read for every key.
LLM_ALWAYS_INLINE void WeightedSum32(const float* p, const float* v,
                                     int64_t stride, int64_t keys, float* out) {
  Float8 a0 = {}, a1 = {}, a2 = {}, a3 = {};
  for (int64_t j = 0; j < keys; ++j) {
    const float* row = v + j * stride;
    const float w = p[j];
    a0 += w * Load8(row);
    a1 += w * Load8(row + 8);
    a2 += w * Load8(row + 16);
    a3 += w * Load8(row + 24);
  }
  Store8(out, a0);
  Store8(out + 8, a1);
  Store8(out + 16, a2);
  Store8(out + 24, a3);
}

// The same for two query heads over the same values: eight chains, and each
// value row loaded once for both.
LLM_ALWAYS_INLINE void WeightedSum32x2(const float* p0, const float* p1,
                                       const float* v, int64_t stride,
                                       int64_t keys, float* out0, float* out1) {
  Float8 a0 = {}, a1 = {}, a2 = {}, a3 = {};
  Float8 b0 = {}, b1 = {}, b2 = {}, b3 = {};
  for (int64_t j = 0; j < keys; ++j) {
    const float* row = v + j * stride;
    const float w0 = p0[j], w1 = p1[j];
    Float8 x = Load8(row);
    a0 += w0 * x;
    b0 += w1 * x;
    x = Load8(row + 8);
    a1 += w0 * x;
    b1 += w1 * x;
    x = Load8(row + 16);
    a2 += w0 * x;
    b2 += w1 * x;
    x = Load8(row + 24);
    a3 += w0 * x;
    b3 += w1 * x;
  }
  Store8(out0, a0);
  Store8(out0 + 8, a1);
  Store8(out0 + 16, a2);
  Store8(out0 + 24, a3);
  Store8(out1, b0);
  Store8(out1 + 8, b1);
  Store8(out1 + 16, b2);
  Store8(out1 + 24, b3);
}

// The same for the dimensions left over (head sizes that are not a
// multiple of 32).
LLM_ALWAYS_INLINE void WeightedSum1(const float* p, const float* v,
                                    int64_t stride, int64_t keys, float* out) {
  float acc = 0.0f;
  for (int64_t j = 0; j < keys; ++j) acc += p[j] * v[j * stride];
  *out = acc;
}

constexpr float kNoScore = -std::numeric_limits<float>::infinity();

typedef int32_t Int8x32 __attribute__((vector_size(32)));

// exp(x) for x <= 0 in eight lanes, without libm: perf put the call per
// score at about a third of the kernel's time in a 5-row verify call. 2^n *
// p(r) with x = n ln2 + r, |r| <= ln2 / 2, and p the degree-6 Taylor polynomial
// of e^r (relative error below 3e-7, a few float ulps). Plain IEEE adds and
// multiplies in a fixed order, so SSE2, AVX2 and NEON round it alike. Lanes
// below -87 (e^-87 is 1.6e-38) give exactly 0, as masked keys must.
LLM_ALWAYS_INLINE Float8 ExpNonPositive8(Float8 x) {
  const Float8 floor = Float8{} - 87.0f;
  const Int8x32 underflow = x < floor;
  x = x < floor ? floor : x;
  // Round x / ln2 to the nearest integer by adding and subtracting 1.5 * 2^23.
  const Float8 shift = Float8{} + 12582912.0f;
  const Float8 n = (x * 1.44269504088896341f + shift) - shift;
  // x - n ln2 in two steps: ln2's high part times n is exact.
  const Float8 r = (x - n * 0.693359375f) - n * -2.12194440e-4f;
  Float8 p = Float8{} + (1.0f / 720.0f);
  p = p * r + (1.0f / 120.0f);
  p = p * r + (1.0f / 24.0f);
  p = p * r + (1.0f / 6.0f);
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  // 2^n from its exponent bits; n is in [-126, 0].
  const Int8x32 bits = (__builtin_convertvector(n, Int8x32) + 127) << 23;
  Float8 scale;
  std::memcpy(&scale, &bits, sizeof scale);
  const Float8 e = p * scale;
  Int8x32 e_bits;
  std::memcpy(&e_bits, &e, sizeof e_bits);
  e_bits &= ~underflow;
  Float8 result;
  std::memcpy(&result, &e_bits, sizeof result);
  return result;
}

// The same for one float, lane for lane.
LLM_ALWAYS_INLINE float ExpNonPositive(float x) {
  const Float8 lanes = Float8{} + x;
  return ExpNonPositive8(lanes)[0];
}

// A query row's softmax over some keys: the largest score m, l = sum of
// exp(score - m) and acc = sum of exp(score - m) * v. m = -inf: no key yet.
struct RowState {
  float* max;  // 1 float
  float* sum;  // 1 float
  float* acc;  // head_dim floats
};

// One block of keys [j0, j0 + keys) for the query heads [0, heads) of one
// position and KV head: q points at the first head, scores holds
// heads * kKeyBlock floats, and row h's block result goes to block[h].
LLM_MULTIVERSIONED
void AttendBlock(const SdpaShape& s, const float* q, const float* k_base,
                 const float* v_base, const float* mask_row, int64_t j0,
                 int64_t keys, int64_t heads, float* scores,
                 const RowState* block) {
  const int64_t dim = s.head_dim;
  const int64_t kv_stride = s.kv_heads * dim;
  const float* k = k_base + j0 * kv_stride;
  const float* v = v_base + j0 * kv_stride;
  int64_t h = 0;
  for (; h + 2 <= heads; h += 2) {
    float* row0 = scores + h * kKeyBlock;
    float* row1 = row0 + kKeyBlock;
    int64_t j = 0;
    for (; j + 4 <= keys; j += 4) {
      Dot2x4(q + h * dim, q + (h + 1) * dim, k + j * kv_stride, kv_stride, dim,
             row0 + j, row1 + j);
    }
    for (; j < keys; ++j) {
      row0[j] = Dot(q + h * dim, k + j * kv_stride, dim);
      row1[j] = Dot(q + (h + 1) * dim, k + j * kv_stride, dim);
    }
  }
  for (; h < heads; ++h) {
    float* row = scores + h * kKeyBlock;
    int64_t j = 0;
    for (; j + 4 <= keys; j += 4) {
      Dot4(q + h * dim, k + j * kv_stride, kv_stride, dim, row + j);
    }
    for (; j < keys; ++j) row[j] = Dot(q + h * dim, k + j * kv_stride, dim);
  }

  // Scores to exp(score - the block's max), and their sum.
  for (h = 0; h < heads; ++h) {
    float* row = scores + h * kKeyBlock;
    float top = kNoScore;
    for (int64_t j = 0; j < keys; ++j) {
      row[j] = row[j] * s.scale + (mask_row ? mask_row[j0 + j] : 0.0f);
      top = std::max(top, row[j]);
    }
    *block[h].max = top;
    float total = 0.0f;
    if (top != kNoScore) {
      int64_t j = 0;
      for (; j + 8 <= keys; j += 8) {
        Store8(row + j, ExpNonPositive8(Load8(row + j) - top));
      }
      for (; j < keys; ++j) row[j] = ExpNonPositive(row[j] - top);
      for (j = 0; j < keys; ++j) total += row[j];
    }
    *block[h].sum = total;
  }

  int64_t d = 0;
  for (; d + 32 <= dim; d += 32) {
    for (h = 0; h + 2 <= heads; h += 2) {
      WeightedSum32x2(scores + h * kKeyBlock, scores + (h + 1) * kKeyBlock,
                      v + d, kv_stride, keys, block[h].acc + d,
                      block[h + 1].acc + d);
    }
    for (; h < heads; ++h) {
      WeightedSum32(scores + h * kKeyBlock, v + d, kv_stride, keys,
                    block[h].acc + d);
    }
  }
  for (; d < dim; ++d) {
    for (h = 0; h < heads; ++h) {
      WeightedSum1(scores + h * kKeyBlock, v + d, kv_stride, keys,
                   block[h].acc + d);
    }
  }
}

// Folds one block's result into a row's running state, the next block in
// key order.
LLM_MULTIVERSIONED
void MergeBlock(int64_t dim, const RowState& block, const RowState& row) {
  if (*block.max == kNoScore) return;  // every key of the block masked
  if (*row.max == kNoScore) {
    *row.max = *block.max;
    *row.sum = *block.sum;
    std::memcpy(row.acc, block.acc, static_cast<size_t>(dim) * sizeof(float));
    return;
  }
  const float top = std::max(*row.max, *block.max);
  const float old_scale = ExpNonPositive(*row.max - top);
  const float new_scale = ExpNonPositive(*block.max - top);
  *row.max = top;
  *row.sum = *row.sum * old_scale + *block.sum * new_scale;
  for (int64_t d = 0; d < dim; ++d) {
    row.acc[d] = row.acc[d] * old_scale + block.acc[d] * new_scale;
  }
}

// The row's output: acc / sum, or zeros when every key was masked.
void FinishRow(int64_t dim, const RowState& row, float* out) {
  if (*row.max == kNoScore) {
    std::fill(out, out + dim, 0.0f);
    return;
  }
  const float inv = 1.0f / *row.sum;
  for (int64_t d = 0; d < dim; ++d) out[d] = row.acc[d] * inv;
}

void CustomSdpaOut(KernelRuntimeContext& ctx, Span<EValue*> stack) {
  LLM_KERNEL_CHECK(ctx, stack.size() >= 9,
                   "llama::custom_sdpa.out: expected 9 arguments, got %zu",
                   stack.size());
  LLM_KERNEL_CHECK(ctx,
                   IsFloat4d(*stack[0]) && IsFloat4d(*stack[1]) &&
                       IsFloat4d(*stack[2]) && IsFloat4d(*stack[8]),
                   "llama::custom_sdpa.out: query, caches and out must be 4-d "
                   "float32 tensors (export with dtype fp32)");
  const Tensor& q = stack[0]->toTensor();
  const Tensor& k = stack[1]->toTensor();
  const Tensor& v = stack[2]->toTensor();
  Tensor& out = stack[8]->toTensor();

  SdpaShape s{};
  s.batch = q.size(0);
  s.seq = q.size(1);
  s.q_heads = q.size(2);
  s.head_dim = q.size(3);
  s.capacity = k.size(1);
  s.kv_heads = k.size(2);
  s.start_pos = stack[3]->isInt() ? stack[3]->toInt() : 0;
  s.causal = stack[6]->isBool() && stack[6]->toBool();
  LLM_KERNEL_CHECK(ctx,
                   k.size(0) == s.batch && v.size(0) == s.batch &&
                       v.size(1) == s.capacity && v.size(2) == s.kv_heads &&
                       k.size(3) == s.head_dim && v.size(3) == s.head_dim &&
                       s.kv_heads > 0 && s.q_heads % s.kv_heads == 0,
                   "llama::custom_sdpa.out: query [%zd,%zd,%zd,%zd] and caches "
                   "[%zd,%zd,%zd,%zd] do not match",
                   q.size(0), q.size(1), q.size(2), q.size(3), k.size(0),
                   k.size(1), k.size(2), k.size(3));
  // out is planned at its upper bound; give it the query's actual shape.
  LLM_KERNEL_CHECK(
      ctx, executorch::runtime::resize_tensor(out, q.sizes()) == Error::Ok,
      "llama::custom_sdpa.out: cannot resize out to the query "
      "shape [%zd,%zd,%zd,%zd]",
      q.size(0), q.size(1), q.size(2), q.size(3));
  if (stack[4]->isTensor()) {
    const Tensor& mask = stack[4]->toTensor();
    LLM_KERNEL_CHECK(ctx,
                     mask.scalar_type() == ScalarType::Float &&
                         mask.dim() == 2 && mask.size(0) == s.seq &&
                         mask.size(1) <= s.capacity,
                     "llama::custom_sdpa.out: attn_mask must be float32 "
                     "[seq, keys<=cache]");
    LLM_KERNEL_CHECK(ctx, !s.causal,
                     "llama::custom_sdpa.out: give attn_mask or is_causal, "
                     "not both");
    s.mask = mask.const_data_ptr<float>();
    s.mask_keys = mask.size(1);
  }
  const int64_t last_key = s.causal
                               ? s.start_pos + s.seq
                               : (s.mask ? s.mask_keys : s.start_pos + s.seq);
  LLM_KERNEL_CHECK(ctx, s.start_pos >= 0 && last_key <= s.capacity,
                   "llama::custom_sdpa.out: attention reaches position %lld "
                   "but the KV cache holds %lld; the context is full",
                   static_cast<long long>(last_key),
                   static_cast<long long>(s.capacity));
  s.scale = 1.0f / std::sqrt(static_cast<float>(s.head_dim));
  if (stack[7]->isDouble()) s.scale = static_cast<float>(stack[7]->toDouble());

  // A pair is one (batch, position, KV head) with the `group` query heads
  // that share the KV head. Prefill has plenty of pairs, and each task takes
  // whole pairs, block after block. A decode or verify call has a few pairs
  // only (3 for SmolLM2's one-token step), too few to share evenly, so there
  // each (pair, block) is a work item; its result waits in scratch, and the
  // task that finishes a pair's last block merges the pair's blocks in key
  // order, as a whole-pair task would. Only tiny calls run inline: measured on
  // SmolLM2 decode, leaving the pool's other threads idle during attention
  // cost more than waking them (they then have to be woken again for the
  // next XNNPACK op anyway).
  const int64_t group = s.group();
  const int64_t dim = s.head_dim;
  // The per-task row states below are fixed arrays.
  constexpr int64_t kMaxGroup = 64;
  LLM_KERNEL_CHECK(ctx, group <= kMaxGroup,
                   "llama::custom_sdpa.out: %lld query heads share a KV head; "
                   "this kernel takes at most %lld",
                   static_cast<long long>(group),
                   static_cast<long long>(kMaxGroup));
  const int64_t macs =
      s.batch * s.seq * s.q_heads * 2 * dim * (s.start_pos + s.seq);
  const int64_t threads =
      macs < (int64_t{1} << 14)
          ? 1
          : std::max<int64_t>(1, executorch::extension::get_thread_count());
  const int64_t pairs = s.batch * s.seq * s.kv_heads;
  const int64_t blocks = (last_key + kKeyBlock - 1) / kKeyBlock;
  // A row state: max, sum and head_dim accumulators.
  const int64_t state_floats = dim + 2;
  const int64_t pair_floats = group * state_floats;
  const bool split_blocks = pairs < 4 * threads && blocks > 1;
  const int64_t items = split_blocks ? pairs * blocks : pairs;
  const int64_t tasks = std::min(items, threads);
  // Per task: one block of scores and one block result per query head, and
  // without split blocks the pair's running state. With them, every pair's
  // block results and a finished-blocks count per pair. All from the
  // runtime's temp arena, so decoding never touches the heap.
  const int64_t task_floats = group * kKeyBlock + 2 * pair_floats;
  const int64_t shared_floats =
      split_blocks ? pairs * (blocks * pair_floats + 1) : 0;
  const size_t scratch_floats =
      static_cast<size_t>(tasks * task_floats + shared_floats);
  auto scratch = ctx.allocate_temp(scratch_floats * sizeof(float), 64);
  LLM_KERNEL_CHECK(ctx, scratch.ok(),
                   "llama::custom_sdpa.out: no temp memory for %zu floats of "
                   "scores; raise the runner's temp arena",
                   scratch_floats);
  float* task_scratch = static_cast<float*>(scratch.get());
  float* block_results = task_scratch + tasks * task_floats;
  int32_t* finished = nullptr;
  if (split_blocks) {
    static_assert(sizeof(int32_t) == sizeof(float), "one count per float");
    finished = reinterpret_cast<int32_t*>(block_results +
                                          pairs * blocks * pair_floats);
    std::fill(finished, finished + pairs, 0);
  }
  const float* q_data = q.const_data_ptr<float>();
  const float* k_data = k.const_data_ptr<float>();
  const float* v_data = v.const_data_ptr<float>();
  float* out_data = out.mutable_data_ptr<float>();

  // Row states laid out as [head][max, sum, acc...] from `base`.
  const auto states = [&](float* base, RowState* rows) {
    for (int64_t h = 0; h < group; ++h) {
      float* state = base + h * state_floats;
      rows[h] = RowState{state, state + 1, state + 2};
    }
  };
  const auto run_tasks = [&](int64_t first_task, int64_t end_task) {
    RowState block[kMaxGroup], running[kMaxGroup];
    for (int64_t t = first_task; t < end_task; ++t) {
      float* scores = task_scratch + t * task_floats;
      states(scores + group * kKeyBlock, block);
      states(scores + group * kKeyBlock + pair_floats, running);
      // Items are dealt round-robin: later prefill positions attend to more
      // keys, and a contiguous share would give the last task the most.
      for (int64_t item = t; item < items; item += tasks) {
        const int64_t pair = split_blocks ? item / blocks : item;
        const int64_t kv_h = pair % s.kv_heads;
        const int64_t i = (pair / s.kv_heads) % s.seq;
        const int64_t b = pair / (s.kv_heads * s.seq);
        // kv_h's query heads start at kv_h * group in the [B, S, Hq, D]
        // layout.
        const int64_t row = (b * s.seq + i) * s.q_heads + kv_h * group;
        const int64_t kv_offset =
            b * s.capacity * s.kv_heads * dim + kv_h * dim;
        const float* mask_row = s.mask ? s.mask + i * s.mask_keys : nullptr;
        const int64_t key_count = s.KeyCount(i);
        const auto attend = [&](int64_t blk, const RowState* result) {
          const int64_t j0 = blk * kKeyBlock;
          const int64_t keys = std::min(kKeyBlock, key_count - j0);
          if (keys <= 0) {
            for (int64_t h = 0; h < group; ++h) *result[h].max = kNoScore;
            return;
          }
          AttendBlock(s, q_data + row * dim, k_data + kv_offset,
                      v_data + kv_offset, mask_row, j0, keys, group, scores,
                      result);
        };
        // Merges the pair's blocks in key order into its rows' outputs;
        // block_result(blk) gives block blk's results.
        const auto merge_pair = [&](const auto& block_result) {
          for (int64_t h = 0; h < group; ++h) *running[h].max = kNoScore;
          for (int64_t blk = 0; blk < blocks; ++blk) {
            const RowState* result = block_result(blk);
            for (int64_t h = 0; h < group; ++h) {
              MergeBlock(dim, result[h], running[h]);
            }
          }
          for (int64_t h = 0; h < group; ++h) {
            FinishRow(dim, running[h], out_data + (row + h) * dim);
          }
        };
        if (!split_blocks) {
          merge_pair([&](int64_t blk) {
            attend(blk, block);
            return block;
          });
          continue;
        }
        float* pair_results = block_results + pair * blocks * pair_floats;
        RowState result[kMaxGroup];
        const auto stored = [&](int64_t blk) {
          states(pair_results + blk * pair_floats, result);
          return result;
        };
        attend(item % blocks, stored(item % blocks));
        // The release publishes this block's result; the task that counts
        // the pair's last block acquires all of them.
        if (__atomic_add_fetch(&finished[pair], 1, __ATOMIC_ACQ_REL) ==
            blocks) {
          merge_pair(stored);
        }
      }
    }
  };
  if (tasks == 1) {
    run_tasks(0, 1);
  } else {
    executorch::extension::parallel_for(0, tasks, 1, run_tasks);
  }
}

}  // namespace

std::string RegisterLlamaKernels() {
  static std::once_flag once;
  static Error status = Error::Ok;
  std::call_once(once, [] {
    static const Kernel kernels[] = {
        Kernel("llama::update_cache.out", UpdateCacheOut),
        Kernel("llama::custom_sdpa.out", CustomSdpaOut),
    };
    status = executorch::runtime::register_kernels(
        Span<const Kernel>(kernels, sizeof(kernels) / sizeof(kernels[0])));
  });
  if (status != Error::Ok) {
    return "registering llama::custom_sdpa.out/update_cache.out failed "
           "(error " +
           std::to_string(static_cast<int>(status)) +
           "); is another library registering them too?";
  }
  return "";
}

}  // namespace llm
