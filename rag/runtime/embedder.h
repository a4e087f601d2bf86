// Sentence embeddings on the device: a MiniLM-style encoder .pte (from
// executorch_pte with a sentence_encoder model, e.g. //models:minilm_l6_fp32)
// plus its WordPiece tokenizer (//models:minilm_l6_vocab).
//
// The program's contract is one method,
//   forward(input_ids: int64[1, L], attention_mask: int64[1, L])
//       -> float32[1, dim]
// already mean-pooled and L2-normalised, so cosine similarity is a dot
// product. The .pte is mmap'd (weights stay in the page cache) and verified at
// load; the memory-planned buffers are one anonymous mapping sized from the
// program's memory plan, as LlmProgram does.
//
// Not thread-safe: one Embed at a time per instance (the method's buffers are
// shared). Set ExecuTorch's thread count (SetThreadCount) before Create:
// XNNPACK binds the pool when the program loads.
#pragma once

#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/forward_method.h"
#include "runtime/loaded_program.h"
#include "runtime/planned_memory.h"
#include "tokenizer/runtime/wordpiece_tokenizer.h"

namespace llm::rag {

class Embedder {
 public:
  // Loads the program and the tokenizer. On failure returns null and sets
  // `error` to what went wrong and how to fix it.
  static std::unique_ptr<Embedder> Create(const std::string& pte_path,
                                          const std::string& vocab_path,
                                          std::string* error);

  // Use Create(); public only so std::make_unique can reach it.
  struct Key {
   private:
    friend class Embedder;
    Key() = default;
  };
  explicit Embedder(Key) {}

  // The unit-length embedding of `text` (dim() floats). Text past
  // max_tokens() tokens is cut, as sentence-transformers does. Returns an
  // empty vector and sets *error if the program fails.
  std::vector<float> Embed(std::string_view text, std::string* error);
  // The same for token ids ([CLS] ... [SEP], at most max_tokens()).
  std::vector<float> EmbedIds(const std::vector<int32_t>& ids,
                              std::string* error);

  int64_t dim() const { return dim_; }
  // Longest input, [CLS] and [SEP] included.
  int64_t max_tokens() const { return max_tokens_; }
  // Lowercase hex SHA-256 of the .pte: ties vectors to the model made them.
  const std::string& model_sha256() const { return model_sha256_; }
  const tokenizer::WordPieceTokenizer& tokenizer() const { return *tokenizer_; }

 private:
  bool LoadProgram(const std::string& pte_path, std::string* error);
  bool CheckSignature(std::string* error);
  bool PrepareForward(std::string* error);

  std::unique_ptr<LoadedProgram> file_;
  executorch::runtime::Program* program_ = nullptr;  // file_'s
  PlannedMemory planned_;
  executorch::extension::MallocMemoryAllocator temp_allocator_;
  ForwardMethod forward_;
  std::optional<tokenizer::WordPieceTokenizer> tokenizer_;

  // Input tensors point at these; they never move after load.
  std::vector<int64_t> ids_buffer_;
  std::vector<int64_t> mask_buffer_;

  int64_t dim_ = 0;
  int64_t max_tokens_ = 0;
  std::string model_sha256_;
};

}  // namespace llm::rag
