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

// Every path sums a query-key dot product in one order (eight partial
// sums, then a fixed tree, then the tail) and accumulates each output over
// the keys in their order, so blocking and threading below change speed,
// never bits: SSE2, AVX2 and NEON give identical attention, and so do any
// thread counts.
//
// Eight floats as one value: GCC and Clang map it to one AVX2 register, two
// SSE2 or two NEON registers, with the same per-lane IEEE arithmetic on all
// of them. As values (not arrays) the accumulators stay in registers.
typedef float Float8 __attribute__((vector_size(32)));

// The helpers below are inlined into AttendGroup's clones, so each is
// compiled for that clone's instruction set (a called helper would be
// baseline SSE2 code).
#define LLM_ALWAYS_INLINE inline __attribute__((always_inline))

LLM_ALWAYS_INLINE Float8 Load8(const float* p) {
  Float8 v;
  std::memcpy(&v, p, sizeof v);
  return v;
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
// Dot() sums it. One key's sum is a chain of dependent adds; four
// independent chains keep the vector unit busy while each waits on its own.
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
  std::memcpy(out, &a0, sizeof a0);
  std::memcpy(out + 8, &a1, sizeof a1);
  std::memcpy(out + 16, &a2, sizeof a2);
  std::memcpy(out + 24, &a3, sizeof a3);
}

// The same for the dimensions left over (head sizes that are not a
// multiple of 32).
LLM_ALWAYS_INLINE void WeightedSum1(const float* p, const float* v,
                                    int64_t stride, int64_t keys, float* out) {
  float acc = 0.0f;
  for (int64_t j = 0; j < keys; ++j) acc += p[j] * v[j * stride];
  *out = acc;
}

// Attention for one query position, one KV head and query heads
// [g_begin, g_end) of the group that shares it. `scores` holds
// group * capacity floats.
LLM_MULTIVERSIONED
void AttendGroup(const SdpaShape& s, const float* q, const float* k_cache,
                 const float* v_cache, int64_t b, int64_t i, int64_t kv_h,
                 int64_t g_begin, int64_t g_end, float* scores, float* out) {
  const int64_t dim = s.head_dim;
  const int64_t keys = s.KeyCount(i);
  const int64_t kv_stride = s.kv_heads * dim;
  const float* k_base = k_cache + b * s.capacity * kv_stride + kv_h * dim;
  const float* v_base = v_cache + b * s.capacity * kv_stride + kv_h * dim;
  const float* mask_row = s.mask ? s.mask + i * s.mask_keys : nullptr;

  for (int64_t g = g_begin; g < g_end; ++g) {
    const float* qg = q + g * dim;
    float* row = scores + g * s.capacity;
    int64_t j = 0;
    for (; j + 4 <= keys; j += 4) {
      Dot4(qg, k_base + j * kv_stride, kv_stride, dim, row + j);
    }
    for (; j < keys; ++j) row[j] = Dot(qg, k_base + j * kv_stride, dim);
    for (j = 0; j < keys; ++j) {
      row[j] = row[j] * s.scale + (mask_row ? mask_row[j] : 0.0f);
    }

    float max_score = -std::numeric_limits<float>::infinity();
    for (j = 0; j < keys; ++j) max_score = std::max(max_score, row[j]);
    float* o = out + g * dim;
    if (max_score == -std::numeric_limits<float>::infinity()) {
      std::fill(o, o + dim, 0.0f);  // every key masked: the output stays zero
      continue;
    }
    float total = 0.0f;
    for (j = 0; j < keys; ++j) {
      row[j] = std::exp(row[j] - max_score);
      total += row[j];
    }
    const float inv = 1.0f / total;
    for (j = 0; j < keys; ++j) row[j] *= inv;

    int64_t d = 0;
    for (; d + 32 <= dim; d += 32) {
      WeightedSum32(row, v_base + d, kv_stride, keys, o + d);
    }
    for (; d < dim; ++d) WeightedSum1(row, v_base + d, kv_stride, keys, o + d);
  }
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

  // Work items are (batch, query position, KV head, a slice of its query
  // heads). Prefill has plenty of (position, KV head) pairs; a decode step
  // has one per KV head (3 for SmolLM2), too few to share evenly between
  // threads, so there each query head is its own item. Only tiny calls run
  // inline: measured on SmolLM2 decode, leaving the pool's other threads idle
  // during attention cost more than waking them (they then have to be woken
  // again for the next XNNPACK op anyway).
  const int64_t macs =
      s.batch * s.seq * s.q_heads * 2 * s.head_dim * (s.start_pos + s.seq);
  const int64_t threads =
      macs < (int64_t{1} << 14)
          ? 1
          : std::max<int64_t>(1, executorch::extension::get_thread_count());
  const int64_t pairs = s.batch * s.seq * s.kv_heads;
  const int64_t slices = pairs >= 4 * threads ? 1 : s.group();
  const int64_t slice_heads = s.group() / slices;
  const int64_t items = pairs * slices;
  const int64_t tasks = std::min(items, threads);
  // One group of score rows per task, from the runtime's temp arena, so
  // decoding never touches the heap.
  const size_t scratch_floats =
      static_cast<size_t>(tasks * s.group() * s.capacity);
  auto scratch = ctx.allocate_temp(scratch_floats * sizeof(float), 64);
  LLM_KERNEL_CHECK(ctx, scratch.ok(),
                   "llama::custom_sdpa.out: no temp memory for %zu scores; "
                   "raise the runner's temp arena",
                   scratch_floats);
  float* scores = static_cast<float*>(scratch.get());
  const float* q_data = q.const_data_ptr<float>();
  const float* k_data = k.const_data_ptr<float>();
  const float* v_data = v.const_data_ptr<float>();
  float* out_data = out.mutable_data_ptr<float>();

  const int64_t per_task = (items + tasks - 1) / tasks;
  const auto run_tasks = [&](int64_t first_task, int64_t end_task) {
    for (int64_t t = first_task; t < end_task; ++t) {
      float* task_scores = scores + t * s.group() * s.capacity;
      const int64_t end_item = std::min(items, (t + 1) * per_task);
      for (int64_t item = t * per_task; item < end_item; ++item) {
        // Item (b, i, kv_h, slice); kv_h's query heads start at
        // kv_h * group in the [B, S, Hq, D] layout.
        const int64_t slice = item % slices;
        const int64_t pair = item / slices;
        const int64_t kv_h = pair % s.kv_heads;
        const int64_t i = (pair / s.kv_heads) % s.seq;
        const int64_t b = pair / (s.kv_heads * s.seq);
        const int64_t row = (b * s.seq + i) * s.q_heads + kv_h * s.group();
        AttendGroup(s, q_data + row * s.head_dim, k_data, v_data, b, i, kv_h,
                    slice * slice_heads, (slice + 1) * slice_heads, task_scores,
                    out_data + row * s.head_dim);
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
