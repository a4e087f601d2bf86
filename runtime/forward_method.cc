#include "runtime/forward_method.h"

#include <executorch/runtime/core/exec_aten/exec_aten.h>

#include <utility>

namespace llm {

using executorch::aten::ScalarType;
using executorch::aten::Tensor;
using executorch::aten::TensorImpl;
using executorch::aten::TensorShapeDynamism;
using executorch::runtime::Error;
using executorch::runtime::EValue;

Error ForwardMethod::Load(executorch::runtime::Program* program,
                          executorch::runtime::HierarchicalAllocator* planned,
                          executorch::runtime::MemoryAllocator* temp,
                          const char* name) {
  memory_manager_.emplace(&method_allocator_, planned, temp);
  auto method = program->load_method(name, &*memory_manager_);
  if (!method.ok()) return method.error();
  method_.emplace(std::move(method.get()));
  return Error::Ok;
}

Error ForwardMethod::Run(const Int64Input* inputs, int count) {
  // Rank 2 is [1, size]: the batch stride is never used, so strides are 1.
  uint8_t dim_order[2] = {0, 1};
  int32_t strides[2] = {1, 1};
  for (int i = 0; i < count; ++i) {
    const Int64Input& input = inputs[i];
    int32_t sizes[2] = {1, input.size};
    int32_t* shape = input.rank == 2 ? sizes : sizes + 1;
    TensorImpl impl(ScalarType::Long, input.rank, shape,
                    const_cast<int64_t*>(input.data), dim_order, strides,
                    input.dynamic ? TensorShapeDynamism::DYNAMIC_BOUND
                                  : TensorShapeDynamism::STATIC);
    const Error status = method_->set_input(EValue(Tensor(&impl)), i);
    if (status != Error::Ok) return status;
  }
  return method_->execute();
}

}  // namespace llm
