#include "rag/runtime/embedder.h"

#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>
#include <executorch/runtime/platform/runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <utility>

#include "runtime/runtime_log.h"

namespace llm::rag {

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::runtime::Error;
using executorch::runtime::EValue;
using executorch::runtime::Tag;

namespace {

constexpr const char kContract[] =
    "forward(input_ids: int64[1, L], attention_mask: int64[1, L]) -> "
    "float32[1, dim]";

}  // namespace

std::unique_ptr<Embedder> Embedder::Create(const std::string& pte_path,
                                           const std::string& vocab_path,
                                           std::string* error) {
  executorch::runtime::runtime_init();
  auto self = std::make_unique<Embedder>(Key());
  self->tokenizer_ = tokenizer::WordPieceTokenizer::FromFile(vocab_path, error);
  if (!self->tokenizer_) return nullptr;
  if (!self->LoadProgram(pte_path, error) || !self->CheckSignature(error) ||
      !self->PrepareForward(error)) {
    return nullptr;
  }
  self->model_sha256_ = self->file_->Sha256();
  return self;
}

bool Embedder::LoadProgram(const std::string& pte_path, std::string* error) {
  LoadOptions load;
  load.file.path = pte_path;
  file_ = LoadedProgram::Open(load, error);
  if (!file_) return false;
  program_ = &file_->program();
  return true;
}

bool Embedder::CheckSignature(std::string* error) {
  auto meta = program_->method_meta("forward");
  if (!meta.ok()) {
    *error =
        "the program has no forward method; export a sentence_encoder "
        "with executorch_pte (" +
        std::string(kContract) + ")";
    return false;
  }
  const auto wrong = [&](const std::string& what) {
    *error = "the program's forward " + what + "; an embedder needs " +
             kContract +
             " (export a sentence_encoder with executorch_pte, e.g. "
             "//models:minilm_l6_fp32; an LLM .pte is not an embedder)";
    return false;
  };
  if (meta->num_inputs() != 2) {
    return wrong("takes " + std::to_string(meta->num_inputs()) + " inputs");
  }
  for (size_t i = 0; i < 2; ++i) {
    auto tag = meta->input_tag(i);
    auto info = meta->input_tensor_meta(i);
    if (!tag.ok() || *tag != Tag::Tensor || !info.ok() ||
        info->scalar_type() != ScalarType::Long || info->sizes().size() != 2) {
      return wrong("input " + std::to_string(i) +
                   " is not an int64 [1, L] tensor");
    }
  }
  auto ids_meta = meta->input_tensor_meta(0);
  max_tokens_ = ids_meta->sizes()[1];
  auto out_meta = meta->output_tensor_meta(0);
  if (meta->num_outputs() != 1 || !out_meta.ok() ||
      out_meta->scalar_type() != ScalarType::Float ||
      out_meta->sizes().size() != 2 || out_meta->sizes()[0] != 1) {
    return wrong("does not return one float32 [1, dim] tensor");
  }
  dim_ = out_meta->sizes()[1];
  if (max_tokens_ < 2 || dim_ < 1) {
    return wrong("has input length " + std::to_string(max_tokens_) +
                 " and output size " + std::to_string(dim_));
  }
  return true;
}

bool Embedder::PrepareForward(std::string* error) {
  auto meta = program_->method_meta("forward");
  if (!planned_.Map({*meta})) {
    *error = "cannot map " + std::to_string(planned_.bytes() >> 20) +
             " MiB for the encoder's memory plan; free memory";
    return false;
  }
  ClearRuntimeError();
  const Error loaded =
      forward_.Load(program_, planned_.allocator(), &temp_allocator_);
  if (loaded != Error::Ok) {
    *error = "cannot load forward: " + DescribeExecuTorchError(loaded);
    if (loaded == Error::OperatorMissing) {
      *error +=
          ". The program uses an operator this runtime has no kernel for; "
          "re-export it with executorch_pte";
    }
    return false;
  }
  ids_buffer_.assign(static_cast<size_t>(max_tokens_), 0);
  mask_buffer_.assign(static_cast<size_t>(max_tokens_), 1);
  return true;
}

std::vector<float> Embedder::Embed(std::string_view text, std::string* error) {
  return EmbedIds(tokenizer_->Encode(text, static_cast<size_t>(max_tokens_)),
                  error);
}

std::vector<float> Embedder::EmbedIds(const std::vector<int32_t>& ids,
                                      std::string* error) {
  const int64_t count = static_cast<int64_t>(ids.size());
  if (count < 2 || count > max_tokens_) {
    *error = "the encoder takes 2.." + std::to_string(max_tokens_) +
             " token ids ([CLS] ... [SEP]), got " + std::to_string(count);
    return {};
  }
  std::copy(ids.begin(), ids.end(), ids_buffer_.begin());
  const int32_t length = static_cast<int32_t>(count);
  const Int64Input inputs[2] = {
      {ids_buffer_.data(), length, 2, /*dynamic=*/true},
      {mask_buffer_.data(), length, 2, /*dynamic=*/true},
  };
  ClearRuntimeError();
  const Error status = forward_.Run(inputs, 2);
  if (status != Error::Ok) {
    *error = "encoder forward failed: " + DescribeExecuTorchError(status);
    return {};
  }
  const EValue& output = forward_.output(0);
  if (!output.isTensor() || output.toTensor().numel() != dim_) {
    *error =
        "encoder forward returned no [1, " + std::to_string(dim_) + "] tensor";
    return {};
  }
  const float* data = output.toTensor().const_data_ptr<float>();
  return std::vector<float>(data, data + dim_);
}

}  // namespace llm::rag
