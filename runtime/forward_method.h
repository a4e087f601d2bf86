// A program's method (`forward` unless named), loaded once against its
// planned memory: the part of running a program that the LLM and the
// sentence embedder share.
//
// Inputs are int64 tensors over buffers the caller owns (token ids,
// positions, masks). Run describes them with TensorImpls on the stack and
// set_input copies them into the method's planned inputs, so a call touches
// no heap: decoding stays allocation-free.
#pragma once

#include <executorch/extension/memory_allocator/malloc_memory_allocator.h>
#include <executorch/runtime/core/evalue.h>
#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/memory_allocator.h>
#include <executorch/runtime/executor/memory_manager.h>
#include <executorch/runtime/executor/method.h>
#include <executorch/runtime/executor/program.h>

#include <cstdint>
#include <optional>

namespace llm {

// One int64 input: [size] (rank 1) or [1, size] (rank 2).
struct Int64Input {
  const int64_t* data;
  int32_t size;
  int rank;
  // The size varies per call up to the exported bound (prefill chunks,
  // sentence lengths) rather than being fixed.
  bool dynamic;
};

class ForwardMethod {
 public:
  // Loads method `name` with `planned` for its buffers and `temp` for
  // kernels' scratch. Both must outlive this object.
  executorch::runtime::Error Load(
      executorch::runtime::Program* program,
      executorch::runtime::HierarchicalAllocator* planned,
      executorch::runtime::MemoryAllocator* temp, const char* name = "forward");

  // Sets inputs 0..count-1 and executes.
  executorch::runtime::Error Run(const Int64Input* inputs, int count);

  const executorch::runtime::EValue& output(size_t index) {
    return method_->get_output(index);
  }

 private:
  // Method bookkeeping: used while loading only.
  executorch::extension::MallocMemoryAllocator method_allocator_;
  std::optional<executorch::runtime::MemoryManager> memory_manager_;
  std::optional<executorch::runtime::Method> method_;
};

}  // namespace llm
