#include "runtime/threadpool_control.h"

#include <algorithm>
#include <thread>

namespace llm {

uint32_t DefaultThreadCount() {
  return std::max(1u, std::thread::hardware_concurrency() / 2);
}

uint32_t SetThreadCount(uint32_t threads) {
  auto* pool = executorch::extension::threadpool::get_threadpool();
  if (pool == nullptr) return 1;
  pool->_unsafe_reset_threadpool(std::max(1u, threads));
  return static_cast<uint32_t>(pool->get_thread_count());
}

}  // namespace llm
