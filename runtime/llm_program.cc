#include "runtime/llm_program.h"

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/platform/runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "runtime/llama_kernels.h"
#include "runtime/runtime_log.h"

namespace llm {

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::MemoryManager;

std::unique_ptr<LlmProgram> LlmProgram::Load(const ProgramOptions& options,
                                             std::string* error) {
  executorch::runtime::runtime_init();
  const std::string kernels = RegisterLlamaKernels();
  if (!kernels.empty()) {
    *error = kernels;
    return nullptr;
  }
  auto self = std::make_unique<LlmProgram>(Key());
  LoadOptions load;
  load.file = {options.pte_path, options.pte_offset, options.pte_length};
  load.integrity = options.integrity;
  load.mlock = options.mlock;
  self->file_ = LoadedProgram::Open(load, error);
  if (!self->file_) return nullptr;
  self->program_ = &self->file_->program();

  if (!self->ReadLimits(error)) return nullptr;

  if (!self->PrepareForward(options, error)) return nullptr;
  return self;
}

bool LlmProgram::ReadLimits(std::string* error) {
  // The exporter stores its settings as constant methods (get_max_seq_len...).
  auto read = [&](const char* name, std::vector<int64_t>* values) -> bool {
    auto meta = program_->method_meta(name);
    if (!meta.ok()) return false;
    executorch::extension::MallocMemoryAllocator allocator;
    MemoryManager manager(&allocator);
    auto method = program_->load_method(name, &manager);
    if (!method.ok() || method->execute() != Error::Ok) return false;
    for (size_t i = 0; i < method->outputs_size(); ++i) {
      const EValue& v = method->get_output(i);
      if (v.isInt()) values->push_back(v.toInt());
      if (v.isBool()) values->push_back(v.toBool() ? 1 : 0);
    }
    return !values->empty();
  };
  std::vector<int64_t> v;
  if (!read("get_max_seq_len", &v) || !read("get_max_context_len", &v) ||
      !read("get_vocab_size", &v)) {
    *error =
        "the program has no get_max_seq_len/get_max_context_len/"
        "get_vocab_size methods; export it with executorch_pte (an LLM "
        "export), not a plain torch.export";
    return false;
  }
  limits_.max_seq_len = v[0];
  limits_.max_context_len = v[1];
  limits_.vocab_size = v[2];
  std::vector<int64_t> bos;
  if (read("get_bos_id", &bos)) limits_.bos_id = bos[0];
  read("get_eos_ids", &limits_.eos_ids);
  // Programs that return more than the last position's logits say how many;
  // the others return one row.
  std::vector<int64_t> rows;
  if (read("get_logit_rows", &rows)) {
    if (rows[0] < 1 || rows[0] > limits_.max_seq_len) {
      *error = "get_logit_rows is " + std::to_string(rows[0]) +
               "; it must be in 1..max_seq_len (" +
               std::to_string(limits_.max_seq_len) + "): re-export the program";
      return false;
    }
    limits_.logit_rows = rows[0];
  }
#if defined(__x86_64__)
  // On x86 the only HTP is QAIRT's simulator, which cannot load a context
  // whose methods share their weights, and ExecuTorch's QNN backend crashes
  // on the failure: say so before loading it.
  std::vector<int64_t> shared;
  if (read("get_qnn_weight_sharing", &shared) && shared[0] != 0) {
    *error =
        "the program's methods share their weights in one QNN context "
        "(weight_sharing), which a phone's HTP loads and the x86 HTP "
        "simulator cannot; run it on a phone, or export it with "
        "weight_sharing = False to run it here";
    return false;
  }
#endif
  return true;
}

bool LlmProgram::PrepareForward(const ProgramOptions& options,
                                std::string* error) {
  auto meta = program_->method_meta("forward");
  if (!meta.ok()) {
    *error = "the program has no forward method (" +
             DescribeExecuTorchError(meta.error()) + ")";
    return false;
  }
  // (tokens, input_pos), and the positions to return logits for when the
  // program says it takes them (get_logit_rows).
  forward_inputs_ = limits_.logit_rows > 1 ? 3 : 2;
  const size_t inputs = static_cast<size_t>(forward_inputs_);
  if (meta->num_inputs() != inputs) {
    *error = "forward takes " + std::to_string(meta->num_inputs()) +
             " inputs; expected " +
             (inputs == 3 ? std::string("(tokens, input_pos, rows)")
                          : std::string("(tokens, input_pos)")) +
             " from a KV-cache export" +
             (inputs == 3 ? " with get_logit_rows" : "");
    return false;
  }
  // The token input's upper bound is the real chunk size (the exporter's
  // dynamic dimension may stop one short of get_max_seq_len()).
  auto tokens_meta = meta->input_tensor_meta(0);
  if (tokens_meta.ok() && tokens_meta->sizes().size() == 2) {
    limits_.max_seq_len =
        std::min<int64_t>(limits_.max_seq_len, tokens_meta->sizes()[1]);
  }
  if (!FindPrefill(error)) return false;
  std::vector<executorch::runtime::MethodMeta> methods = {*meta};
  if (prefill_length_ > 0) methods.push_back(*program_->method_meta("prefill"));

  executorch::runtime::MemoryAllocator* temp = &heap_temp_allocator_;
  if (options.static_arena) {
    // One arena for all planned buffers and a fixed arena for kernels' temp
    // memory.
    if (!planned_.Map(methods)) {
      *error = "cannot map " + std::to_string(planned_.bytes() >> 20) +
               " MiB for the memory plan; free memory or export a shorter "
               "max_context_len";
      return false;
    }
    temp_arena_ = MappedArena(options.temp_arena_bytes);
    if (!temp_arena_.ok()) {
      *error = "cannot map a temp arena of " +
               std::to_string(options.temp_arena_bytes) + " bytes";
      return false;
    }
    temp_allocator_.emplace(static_cast<uint32_t>(temp_arena_.size()),
                            temp_arena_.data());
    temp = &*temp_allocator_;
  } else if (!planned_.AllocateOnHeap(methods)) {
    *error = "out of memory for the memory plan (" +
             std::to_string(planned_.bytes()) + " bytes)";
    return false;
  }
  if (!LoadMethod(&forward_, "forward", temp, error)) return false;
  if (prefill_length_ > 0 && !LoadMethod(&prefill_, "prefill", temp, error)) {
    return false;
  }
  if (prefill_length_ > 0) limits_.max_seq_len = prefill_length_;
  token_buffer_.assign(static_cast<size_t>(limits_.max_seq_len), 0);
  position_buffer_.assign(static_cast<size_t>(limits_.max_seq_len), 0);
  row_buffer_.assign(static_cast<size_t>(limits_.logit_rows), 0);
  return true;
}

bool LlmProgram::FindPrefill(std::string* error) {
  auto meta = program_->method_meta("prefill");
  if (!meta.ok()) return true;  // a program without one prefills on forward
  auto tokens = meta->input_tensor_meta(0);
  auto positions = meta->input_tensor_meta(1);
  const bool shaped =
      meta->num_inputs() == 2 && tokens.ok() && positions.ok() &&
      tokens->sizes().size() == 2 && positions->sizes().size() == 1 &&
      tokens->sizes()[1] == positions->sizes()[0] && tokens->sizes()[1] >= 2;
  if (!shaped) {
    *error =
        "the program's prefill method does not take (tokens [1, N], "
        "input_pos [N]) with N >= 2; re-export it with executorch_pte "
        "(backend \"qnn\", prefill_length)";
    return false;
  }
  if (limits_.max_seq_len != 1 || limits_.logit_rows != 1) {
    *error = "the program has a prefill method beside a forward that takes " +
             std::to_string(limits_.max_seq_len) +
             " tokens per call; a prefill method belongs beside a one-token "
             "forward: re-export it";
    return false;
  }
  prefill_length_ = tokens->sizes()[1];
  if (prefill_length_ >= limits_.max_context_len) {
    *error = "the prefill method reads " + std::to_string(prefill_length_) +
             " tokens per call, not fewer than the context of " +
             std::to_string(limits_.max_context_len) + ": re-export it";
    return false;
  }
  return true;
}

bool LlmProgram::LoadMethod(ForwardMethod* method, const char* name,
                            executorch::runtime::MemoryAllocator* temp,
                            std::string* error) {
  ClearRuntimeError();
  const Error loaded = method->Load(program_, planned_.allocator(), temp, name);
  if (loaded == Error::Ok) return true;
  std::string detail = DescribeExecuTorchError(loaded);
  *error = std::string("cannot load ") + name + ": " + detail;
  if (detail.find("QnnBackend is not registered") != std::string::npos) {
    *error +=
        ". The program is delegated to the Qualcomm NPU: load ExecuTorch's "
        "QNN backend with --backend_library (libqnn_executorch_backend.so "
        "on Android, libexecutorch_backend_qnn.so on this host) and put "
        "the QAIRT libraries on LD_LIBRARY_PATH (README \"Qualcomm NPU\")";
  } else if (loaded == Error::OperatorMissing) {
    *error +=
        ". The program uses an operator this runner has no kernel for; "
        "re-export with the supported settings (executorch_pte) or add the "
        "kernel to //runtime";
  }
  return false;
}

const float* LlmProgram::Execute(ForwardMethod* method, const char* name,
                                 const Int64Input* inputs, int input_count,
                                 int64_t rows, std::string* error) {
  ClearRuntimeError();
  const Error status = method->Run(inputs, input_count);
  ++executions_;
  if (status != Error::Ok) {
    *error = std::string(name) + " failed: " + DescribeExecuTorchError(status);
    return nullptr;
  }
  const EValue& output = method->output(0);
  if (!output.isTensor() ||
      output.toTensor().scalar_type() != ScalarType::Float) {
    *error =
        std::string(name) + "'s first output is not a float tensor of logits";
    return nullptr;
  }
  const Tensor& logits = output.toTensor();
  // A program may return more rows than asked for (one exported with every
  // position's logits, say); the caller's are the trailing ones.
  const int64_t returned = logits.numel() / limits_.vocab_size;
  if (returned < rows) {
    *error = std::string(name) + " returned the logits of " +
             std::to_string(returned) + " positions where " +
             std::to_string(rows) +
             " were asked for; the program's get_logit_rows does not match "
             "its graph: re-export it";
    return nullptr;
  }
  return logits.const_data_ptr<float>() +
         (returned - rows) * limits_.vocab_size;
}

const float* LlmProgram::Prefill(const int64_t* tokens, int64_t count,
                                 int64_t start, std::string* error) {
  const int64_t length = prefill_length_;
  // The chunk is padded at its end. The padding's cache rows lie past the
  // next start, so they are overwritten before attention reads them.
  std::copy(tokens, tokens + count, token_buffer_.begin());
  std::fill(token_buffer_.begin() + count, token_buffer_.end(), tokens[0]);
  for (int64_t i = 0; i < length; ++i) position_buffer_[i] = start + i;
  const Int64Input inputs[2] = {
      {token_buffer_.data(), static_cast<int32_t>(length), 2,
       /*dynamic=*/false},
      {position_buffer_.data(), static_cast<int32_t>(length), 1,
       /*dynamic=*/false},
  };
  // Every position's logits come back; the chunk's last real token's row is
  // the caller's.
  const float* rows = Execute(&prefill_, "prefill", inputs, 2, length, error);
  if (rows == nullptr) return nullptr;
  return rows + (count - 1) * limits_.vocab_size;
}

const float* LlmProgram::ForwardRows(const int64_t* tokens, int64_t count,
                                     int64_t start, int64_t rows,
                                     std::string* error) {
  if (count < 1 || count > limits_.max_seq_len) {
    *error = "forward got " + std::to_string(count) +
             " tokens; the program takes 1.." +
             std::to_string(limits_.max_seq_len) + " per call";
    return nullptr;
  }
  if (start < 0 || start + count > limits_.max_context_len) {
    *error = "positions " + std::to_string(start) + ".." +
             std::to_string(start + count - 1) +
             " are outside the context of " +
             std::to_string(limits_.max_context_len);
    return nullptr;
  }
  if (rows < 1 || rows > std::min(count, limits_.logit_rows)) {
    *error = "asked for the logits of " + std::to_string(rows) +
             " positions of " + std::to_string(count) +
             "; the program returns at most " +
             std::to_string(limits_.logit_rows) + " per call";
    return nullptr;
  }
  if (prefill_length_ > 0 && count > 1) {
    // The prefill graph writes all its positions: near the end of the
    // context its padding would fall outside the cache, so the chunk goes
    // one token per forward instead.
    if (start + prefill_length_ <= limits_.max_context_len) {
      return Prefill(tokens, count, start, error);
    }
    const float* logits = nullptr;
    for (int64_t i = 0; i < count && (i == 0 || logits != nullptr); ++i) {
      logits = ForwardRows(tokens + i, 1, start + i, 1, error);
    }
    return logits;
  }
  std::copy(tokens, tokens + count, token_buffer_.begin());
  position_buffer_[0] = start;
  for (int64_t i = 0; i < rows; ++i) row_buffer_[i] = count - rows + i;
  const Int64Input inputs[3] = {
      {token_buffer_.data(), static_cast<int32_t>(count), 2, /*dynamic=*/true},
      {position_buffer_.data(), 1, 1, /*dynamic=*/false},
      {row_buffer_.data(), static_cast<int32_t>(rows), 1, /*dynamic=*/true},
  };
  return Execute(&forward_, "forward", inputs, forward_inputs_, rows, error);
}

}  // namespace llm
