#include "runtime/planned_memory.h"

#include <sys/mman.h>

#include <algorithm>

namespace llm {
namespace {

// Cache-line alignment for every planned buffer: XNNPACK and our kernels
// load whole lines.
constexpr size_t kAlignment = 64;

size_t AlignUp(size_t n) {
  return (n + kAlignment - 1) / kAlignment * kAlignment;
}

}  // namespace

MappedArena::MappedArena(size_t bytes) : size_(bytes) {
  if (bytes == 0) return;
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  data_ = p == MAP_FAILED ? nullptr : static_cast<uint8_t*>(p);
}

MappedArena::~MappedArena() {
  if (data_ != nullptr) munmap(data_, size_);
}

MappedArena& MappedArena::operator=(MappedArena&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) munmap(data_, size_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

void PlannedMemory::Plan(
    const std::vector<executorch::runtime::MethodMeta>& methods) {
  sizes_.clear();
  for (const auto& meta : methods) {
    const size_t count = meta.num_memory_planned_buffers();
    if (sizes_.size() < count) sizes_.resize(count, 0);
    for (size_t i = 0; i < count; ++i) {
      sizes_[i] = std::max(
          sizes_[i],
          static_cast<size_t>(meta.memory_planned_buffer_size(i).get()));
    }
  }
  bytes_ = 0;
  for (size_t size : sizes_) bytes_ += AlignUp(size);
  spans_.clear();
  spans_.reserve(sizes_.size());
}

void PlannedMemory::Finish() {
  allocator_.emplace(
      executorch::runtime::Span<executorch::runtime::Span<uint8_t>>(
          spans_.data(), spans_.size()));
}

bool PlannedMemory::Map(
    const std::vector<executorch::runtime::MethodMeta>& methods) {
  Plan(methods);
  arena_ = MappedArena(bytes_);
  if (!arena_.ok()) return false;
  size_t offset = 0;
  for (size_t size : sizes_) {
    spans_.emplace_back(arena_.data() + offset, size);
    offset += AlignUp(size);
  }
  Finish();
  return true;
}

bool PlannedMemory::AllocateOnHeap(
    const std::vector<executorch::runtime::MethodMeta>& methods) {
  Plan(methods);
  for (size_t size : sizes_) {
    heap_buffers_.emplace_back(static_cast<uint8_t*>(std::malloc(size)),
                               &std::free);
    if (size > 0 && heap_buffers_.back() == nullptr) return false;
    spans_.emplace_back(heap_buffers_.back().get(), size);
  }
  Finish();
  return true;
}

}  // namespace llm
