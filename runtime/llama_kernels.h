// Our implementations of the two operators the default ExecuTorch llama export
// (`use_sdpa_with_kv_cache`) emits outside the stock kernel libraries:
//
//   llama::update_cache.out(Tensor value, Tensor(a!) cache, SymInt start_pos,
//                           *, Tensor(b!) out) -> Tensor(b!)
//   llama::custom_sdpa.out(Tensor query, Tensor key_cache, Tensor value_cache,
//                          SymInt start_pos, Tensor? attn_mask, float drop_p,
//                          bool is_causal, float? scale, *, Tensor(a!) out)
//
// Upstream ships them only inside libcustom_ops_aot_lib.so, which needs
// libtorch; registering our own lets a plain C++ process (and Android) load the
// fast export. Layouts follow the export: query/out [B, S, Hq, D], caches
// [B, max_context, Hkv, D], all float32 and contiguous.
#pragma once

#include <string>

namespace llm {

// Registers both kernels with the ExecuTorch runtime. Safe to call more than
// once. Returns an empty string on success, else the reason.
std::string RegisterLlamaKernels();

}  // namespace llm
