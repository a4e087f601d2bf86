// Counts every heap allocation of the process for AllocationCounter, by
// defining malloc and friends in the executable. Link it (alwayslink) only
// into executables: in a shared library, such as the app's JNI library, the
// definitions would not interpose, and AllocationCounter::Supported() would
// (truthfully) say that nothing is counted.
#include <cstddef>

#include "runtime/allocation_count.h"

using llm::g_allocation_count;

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
  g_allocation_count.fetch_add(1, std::memory_order_relaxed);
  return __libc_malloc(size);
}

void* calloc(size_t count, size_t size) {
  g_allocation_count.fetch_add(1, std::memory_order_relaxed);
  return __libc_calloc(count, size);
}

void* realloc(void* ptr, size_t size) {
  g_allocation_count.fetch_add(1, std::memory_order_relaxed);
  return __libc_realloc(ptr, size);
}

void* memalign(size_t alignment, size_t size) {
  g_allocation_count.fetch_add(1, std::memory_order_relaxed);
  return __libc_memalign(alignment, size);
}

void* aligned_alloc(size_t alignment, size_t size) {
  g_allocation_count.fetch_add(1, std::memory_order_relaxed);
  return __libc_memalign(alignment, size);
}

int posix_memalign(void** out, size_t alignment, size_t size) {
  // EINVAL unless alignment is a power of two multiple of sizeof(void*).
  if (alignment % sizeof(void*) != 0 || (alignment & (alignment - 1)) != 0) {
    return 22;
  }
  g_allocation_count.fetch_add(1, std::memory_order_relaxed);
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
