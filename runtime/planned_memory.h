// The memory a method's plan asks for, allocated once at load time.
//
// ExecuTorch plans every activation and KV-cache buffer ahead of time and
// reports their sizes in MethodMeta. Both programs this runtime loads (the
// LLM and the sentence embedder) carve all of them from one anonymous
// mapping, so running a method never allocates.
#pragma once

#include <executorch/runtime/core/hierarchical_allocator.h>
#include <executorch/runtime/core/span.h>
#include <executorch/runtime/executor/method_meta.h>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace llm {

// An anonymous, page-aligned mapping, unmapped on destruction. Pages are
// committed only when first touched, so unused cache rows cost no RSS.
class MappedArena {
 public:
  MappedArena() = default;
  explicit MappedArena(size_t bytes);
  ~MappedArena();
  MappedArena(const MappedArena&) = delete;
  MappedArena& operator=(const MappedArena&) = delete;
  MappedArena(MappedArena&& other) noexcept { *this = std::move(other); }
  MappedArena& operator=(MappedArena&& other) noexcept;

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  bool ok() const { return data_ != nullptr || size_ == 0; }

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

// The planned buffers of one or more methods and the HierarchicalAllocator
// over them. Methods given together share it: buffer i is as large as the
// largest method's buffer i. That is right for methods that run one at a
// time, and it is how two methods share one KV cache: the exporter plans the
// cache at the same offsets of the same buffer in both
// (qnn_recipe/lowering.py).
// Not movable: the allocator points into its own span list.
class PlannedMemory {
 public:
  PlannedMemory() = default;
  PlannedMemory(const PlannedMemory&) = delete;
  PlannedMemory& operator=(const PlannedMemory&) = delete;

  // Carves every buffer of the methods' plans from one mapping, each slice
  // 64-byte aligned. False when the mapping fails; bytes() then says how much.
  bool Map(const std::vector<executorch::runtime::MethodMeta>& methods);
  // One malloc'd block per buffer instead: only to measure what the single
  // mapping buys. False when a malloc fails.
  bool AllocateOnHeap(
      const std::vector<executorch::runtime::MethodMeta>& methods);

  executorch::runtime::HierarchicalAllocator* allocator() {
    return &*allocator_;
  }
  // The plan's size with alignment: what Map maps.
  size_t bytes() const { return bytes_; }

 private:
  void Plan(const std::vector<executorch::runtime::MethodMeta>& methods);
  void Finish();

  std::vector<size_t> sizes_;
  size_t bytes_ = 0;
  MappedArena arena_;
  std::vector<std::unique_ptr<uint8_t, void (*)(void*)>> heap_buffers_;
  std::vector<executorch::runtime::Span<uint8_t>> spans_;
  std::optional<executorch::runtime::HierarchicalAllocator> allocator_;
};

}  // namespace llm
