#include "runtime/llm_program.h"

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/platform/runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>

#include "runtime/llama_kernels.h"
#include "runtime/runtime_log.h"

namespace llm {

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::MemoryManager;

namespace {}  // namespace

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

  executorch::runtime::MemoryAllocator* temp = &heap_temp_allocator_;
  if (options.static_arena) {
    // One arena for all planned buffers and a fixed arena for kernels' temp
    // memory.
    if (!planned_.Map(*meta)) {
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
  } else if (!planned_.AllocateOnHeap(*meta)) {
    *error = "out of memory for the memory plan (" +
             std::to_string(planned_.bytes()) + " bytes)";
    return false;
  }
  ClearRuntimeError();
  const Error loaded = forward_.Load(program_, planned_.allocator(), temp);
  if (loaded != Error::Ok) {
    std::string detail = DescribeExecuTorchError(loaded);
    *error = "cannot load forward: " + detail;
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
  token_buffer_.assign(static_cast<size_t>(limits_.max_seq_len), 0);
  row_buffer_.assign(static_cast<size_t>(limits_.logit_rows), 0);
  return true;
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
  std::copy(tokens, tokens + count, token_buffer_.begin());
  position_buffer_[0] = start;
  for (int64_t i = 0; i < rows; ++i) row_buffer_[i] = count - rows + i;
  const Int64Input inputs[3] = {
      {token_buffer_.data(), static_cast<int32_t>(count), 2, /*dynamic=*/true},
      {position_buffer_, 1, 1, /*dynamic=*/false},
      {row_buffer_.data(), static_cast<int32_t>(rows), 1, /*dynamic=*/true},
  };
  ClearRuntimeError();
  const Error status = forward_.Run(inputs, forward_inputs_);
  if (status != Error::Ok) {
    *error = "forward failed: " + DescribeExecuTorchError(status);
    return nullptr;
  }
  const EValue& output = forward_.output(0);
  if (!output.isTensor() ||
      output.toTensor().scalar_type() != ScalarType::Float) {
    *error = "forward's first output is not a float tensor of logits";
    return nullptr;
  }
  const Tensor& logits = output.toTensor();
  // A program may return more rows than asked for (one exported with every
  // position's logits, say); the caller's are the trailing ones.
  const int64_t returned = logits.numel() / limits_.vocab_size;
  if (returned < rows) {
    *error = "forward returned the logits of " + std::to_string(returned) +
             " positions where " + std::to_string(rows) +
             " were asked for; the program's get_logit_rows does not match "
             "its graph: re-export it";
    return nullptr;
  }
  return logits.const_data_ptr<float>() +
         (returned - rows) * limits_.vocab_size;
}

}  // namespace llm
