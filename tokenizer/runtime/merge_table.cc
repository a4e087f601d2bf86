#include "tokenizer/runtime/merge_table.h"

namespace llm::tokenizer {

std::optional<MergeTable> MergeTable::Create(
    const std::vector<MergeRule>& rules, std::string* error) {
  MergeTable table;
  // At most half full, so that probe sequences stay short.
  int bits = 1;
  while ((uint64_t{1} << bits) < 2 * rules.size() + 1) ++bits;
  table.slots_.resize(uint64_t{1} << bits);
  table.mask_ = (uint64_t{1} << bits) - 1;
  table.shift_ = 64 - bits;
  for (size_t rank = 0; rank < rules.size(); ++rank) {
    const MergeRule& rule = rules[rank];
    const uint64_t key = Key(rule.left_id, rule.right_id);
    uint64_t slot = table.Hash(key);
    while (table.slots_[slot].key != kEmpty) {
      if (table.slots_[slot].key == key) {
        *error = "merge " + std::to_string(rank) + " repeats the pair (" +
                 std::to_string(rule.left_id) + ", " +
                 std::to_string(rule.right_id) + ") of merge " +
                 std::to_string(table.slots_[slot].rank);
        return std::nullopt;
      }
      slot = (slot + 1) & table.mask_;
    }
    table.slots_[slot] = {key, static_cast<int32_t>(rank), rule.merged_id};
  }
  return table;
}

}  // namespace llm::tokenizer
