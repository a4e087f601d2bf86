// Sets the size of ExecuTorch's shared CPU thread pool (used by XNNPACK and by
// parallel_for in our kernels).
//
// The wheel exports these functions from libexecutorch_threadpool.so but does
// not ship extension/threadpool/threadpool.h, so we declare the two entry
// points we use. Only non-virtual member functions are declared: the mangled
// names are all that must match, and the class layout is never touched.
#pragma once

#include <cstddef>
#include <cstdint>

namespace executorch {
namespace extension {
namespace threadpool {

class ThreadPool {
 public:
  // Resizes the pool; false if it is busy.
  bool _unsafe_reset_threadpool(uint32_t num_threads);
  size_t get_thread_count() const;
};

ThreadPool* get_threadpool();

}  // namespace threadpool
}  // namespace extension
}  // namespace executorch

namespace llm {

// Half the cores, at least one: leaves room for the UI thread on a phone and
// for thermal headroom; the caller can override with --threads.
uint32_t DefaultThreadCount();

// Returns the thread count actually in effect.
uint32_t SetThreadCount(uint32_t threads);

}  // namespace llm
