// BPE merge rules looked up by the pair of token ids they join.
//
// An open-addressing hash table keyed by (left << 32 | right): the lookup is
// the inner loop of encoding, and a flat array of 16-byte slots avoids the
// per-node allocations and pointer chasing of std::unordered_map.

#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llm::tokenizer {

struct MergeRule {
  int32_t left_id;
  int32_t right_id;
  int32_t merged_id;
};

class MergeTable {
 public:
  struct Merge {
    int32_t rank;  // lower merges first
    int32_t merged_id;
  };

  // `rules` in rank order (the rule at index r has rank r); ids must be
  // non-negative. Returns nullopt and sets *error if a pair appears twice.
  static std::optional<MergeTable> Create(const std::vector<MergeRule>& rules,
                                          std::string* error);

  // The merge of (left_id, right_id), if there is one.
  std::optional<Merge> Find(int32_t left_id, int32_t right_id) const {
    const uint64_t key = Key(left_id, right_id);
    for (uint64_t slot = Hash(key);; slot = (slot + 1) & mask_) {
      const Slot& s = slots_[slot];
      if (s.key == key) return Merge{s.rank, s.merged_id};
      if (s.key == kEmpty) return std::nullopt;
    }
  }

 private:
  // Ids are < 2^31, so no real pair has this key.
  static constexpr uint64_t kEmpty = ~uint64_t{0};

  struct Slot {
    uint64_t key = kEmpty;
    int32_t rank = -1;
    int32_t merged_id = -1;
  };

  MergeTable() = default;

  static uint64_t Key(int32_t left_id, int32_t right_id) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(left_id)) << 32) |
           static_cast<uint32_t>(right_id);
  }
  // Fibonacci hashing: the top bits of key * 2^64/phi.
  uint64_t Hash(uint64_t key) const {
    return (key * 0x9E3779B97F4A7C15ull) >> shift_;
  }

  std::vector<Slot> slots_;
  uint64_t mask_ = 0;
  int shift_ = 64;
};

}  // namespace llm::tokenizer
