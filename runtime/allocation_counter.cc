#include "runtime/allocation_counter.h"

#include <atomic>
#include <cstddef>

namespace {
std::atomic<uint64_t> g_allocations{0};
}  // namespace

#if defined(__GLIBC__)
// glibc exports its allocator under __libc_* names. Defining the public names
// in the executable interposes them for every shared library too, so
// allocations inside libexecutorch and XNNPACK are counted. operator new ends
// in malloc, so C++ allocations are covered as well.
extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* ptr, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
void __libc_free(void* ptr);

void* malloc(size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(size);
}

void* calloc(size_t count, size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(count, size);
}

void* realloc(void* ptr, size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(ptr, size);
}

void* memalign(size_t alignment, size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_memalign(alignment, size);
}

void* aligned_alloc(size_t alignment, size_t size) {
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  return __libc_memalign(alignment, size);
}

int posix_memalign(void** out, size_t alignment, size_t size) {
  // EINVAL unless alignment is a power of two multiple of sizeof(void*).
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0) {
    return 22;
  }
  g_allocations.fetch_add(1, std::memory_order_relaxed);
  void* p = __libc_memalign(alignment, size);
  if (p == nullptr) {
    return 12;  // ENOMEM
  }
  *out = p;
  return 0;
}

void free(void* ptr) { __libc_free(ptr); }
}  // extern "C"
#endif

namespace llm {

bool AllocationCounter::Supported() {
#if defined(__GLIBC__)
  return true;
#else
  return false;
#endif
}

uint64_t AllocationCounter::Count() {
  return g_allocations.load(std::memory_order_relaxed);
}

}  // namespace llm
