// A loaded llama .pte, ready to run forward passes against its KV cache.
//
// Memory layout, decided once at load time:
//   * the file is mmap'd (MmapDataLoader, no mlock unless asked): weights stay
//     in the page cache and are shared, never copied to the heap;
//   * every memory-planned buffer (activations and the KV cache) is carved
//     from ONE anonymous mapping sized from the program's memory plan;
//   * kernels get scratch from a fixed temp arena that the runtime resets
//     after each op.
// After Load returns, Forward allocates nothing (see AllocationCounter).
//
// A program may carry a `prefill` method beside `forward`: a fixed-length
// graph that reads prefill_length tokens per execution (the QNN exporter
// writes one). Both methods share the memory plan, and so the KV cache.
// Calls of more than one token then run on `prefill`, padded to its length,
// and max_seq_len is its length.
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
#include <utility>
#include <vector>

#include "runtime/forward_method.h"
#include "runtime/loaded_program.h"
#include "runtime/logits_model.h"
#include "runtime/planned_memory.h"
#include "runtime/program_integrity.h"

namespace llm {

struct ProgramOptions {
  std::string pte_path;
  // The program's bytes inside pte_path: 0 and 0 mean the whole file. The app
  // maps its uncompressed APK asset in place this way.
  uint64_t pte_offset = 0;
  uint64_t pte_length = 0;
  // Checked against the manifest at load (see program_integrity.h).
  IntegrityOptions integrity;
  // Lock the weights in RAM (mlock). Off by default: on phones it counts
  // against the app's memory and rarely helps a model read once per token.
  bool mlock = false;
  // Scratch for kernels that ask for temp memory (our sdpa's score rows).
  size_t temp_arena_bytes = size_t{8} << 20;
  // false: what a runtime without a memory plan of its own does - one heap
  // block per planned buffer, and temp memory malloc'd per kernel call and
  // freed after it. Kept only to measure what the arena buys (//bench:device).
  bool static_arena = true;
};

class LlmProgram : public LogitsModel {
 public:
  // Loads and verifies the program and prepares `forward`. On failure returns
  // null and sets `error` to what went wrong and how to fix it.
  static std::unique_ptr<LlmProgram> Load(const ProgramOptions& options,
                                          std::string* error);

  // Use Load(); public only so std::make_unique can reach it.
  struct Key {
   private:
    friend class LlmProgram;
    Key() = default;
  };
  explicit LlmProgram(Key) {}

  const ProgramLimits& limits() const override { return limits_; }
  // What the load-time integrity check found ("verified", "no_manifest",
  // "skipped") and what it cost.
  const std::string& integrity() const { return file_->integrity().status; }
  double integrity_ms() const { return file_->integrity().ms; }
  // The program's sha256 (see LoadedProgram::Sha256).
  std::string Sha256() const { return file_->Sha256(); }

  const float* ForwardRows(const int64_t* tokens, int64_t count, int64_t start,
                           int64_t rows, std::string* error) override;
  int64_t executions() const override { return executions_; }
  // Tokens per execution of the program's prefill method; 0 without one.
  int64_t prefill_length() const { return prefill_length_; }

 private:
  bool ReadLimits(std::string* error);
  bool PrepareForward(const ProgramOptions& options, std::string* error);
  // Finds and checks the prefill method; false + error when it is malformed.
  bool FindPrefill(std::string* error);
  bool LoadMethod(ForwardMethod* method, const char* name,
                  executorch::runtime::MemoryAllocator* temp,
                  std::string* error);
  // One execution of `method`; its output 0 as logits of `rows` positions,
  // or null + error.
  const float* Execute(ForwardMethod* method, const char* name,
                       const Int64Input* inputs, int input_count, int64_t rows,
                       std::string* error);
  const float* Prefill(const int64_t* tokens, int64_t count, int64_t start,
                       std::string* error);

  std::unique_ptr<LoadedProgram> file_;
  executorch::runtime::Program* program_ = nullptr;  // file_'s

  // forward's memory: method bookkeeping (load time only), planned buffers,
  // temp scratch.
  PlannedMemory planned_;
  MappedArena temp_arena_;
  std::optional<executorch::runtime::MemoryAllocator> temp_allocator_;
  // Only with static_arena = false.
  executorch::extension::MallocMemoryAllocator heap_temp_allocator_;
  ForwardMethod forward_;
  ForwardMethod prefill_;
  int64_t prefill_length_ = 0;
  int64_t executions_ = 0;

  // Input tensors point at these; they never move after load.
  std::vector<int64_t> token_buffer_;
  std::vector<int64_t> position_buffer_;
  // Which positions of a call forward returns logits for (logit_rows > 1).
  std::vector<int64_t> row_buffer_;
  // forward's inputs: (tokens, input_pos), and rows when logit_rows > 1.
  int forward_inputs_ = 2;

  ProgramLimits limits_;
};

}  // namespace llm
