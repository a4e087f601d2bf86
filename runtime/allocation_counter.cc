#include "runtime/allocation_counter.h"

#include <cstdlib>

#include "runtime/allocation_count.h"

namespace llm {

std::atomic<uint64_t> g_allocation_count{0};

bool AllocationCounter::Supported() {
  // Counted only where malloc_interposer is linked into the executable. A
  // library cannot tell that from its own build, so it asks: one allocation
  // that the counter must see. (Through a volatile pointer, so the compiler
  // cannot drop the malloc/free pair.)
  static const bool supported = [] {
    static void* (*volatile allocate)(size_t) = std::malloc;
    const uint64_t before = Count();
    void* probe = allocate(16);
    const bool counted = Count() > before;
    std::free(probe);
    return counted;
  }();
  return supported;
}

uint64_t AllocationCounter::Count() {
  return g_allocation_count.load(std::memory_order_relaxed);
}

}  // namespace llm
