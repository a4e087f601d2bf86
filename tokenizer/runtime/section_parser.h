// The base of each compiled tokenizer file's parser (BPE .tok, WordPiece
// .wpt): sections in the order the format fixes, the first error wins, and
// the vocabulary section both formats open with.

#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/runtime/byte_reader.h"

namespace llm::tokenizer {

// Derived parses one format; its section parsers are bool
// (Derived::*)(ByteReader&).
template <typename Derived>
class SectionParser {
 public:
  explicit SectionParser(std::string_view payload) : sections_(payload) {}

  const std::string& error() const { return sections_.error(); }

 protected:
  bool Fail(const std::string& message) { return sections_.Fail(message); }
  std::string Where() const { return sections_.Where(); }
  bool Finish() { return sections_.Finish(); }

  bool Section(std::string_view tag, bool (Derived::*parse)(ByteReader&)) {
    return sections_.Next(tag, [&](ByteReader& r) {
      return (static_cast<Derived*>(this)->*parse)(r);
    });
  }

  bool CheckTokenId(int64_t id, size_t vocab_size, const char* what) {
    if (id >= 0 && id < static_cast<int64_t>(vocab_size)) return true;
    return Fail(Where() + what + " " + std::to_string(id) +
                " is not a token id (vocab size " + std::to_string(vocab_size) +
                ")");
  }

  // A u32 count, that many u32 end offsets (non-decreasing), then the
  // tokens' bytes: token i is bytes[ends[i-1], ends[i]).
  bool ReadVocab(ByteReader& r, std::string* token_bytes,
                 std::vector<uint32_t>* token_ends) {
    const uint32_t count = r.U32();
    if (count == 0 ||
        count > static_cast<uint32_t>(std::numeric_limits<int32_t>::max()) ||
        !r.CanRead(count, 4)) {
      return Fail(Where() + "has a bad token count " + std::to_string(count));
    }
    token_ends->resize(count);
    uint32_t previous_end = 0;
    for (uint32_t& end : *token_ends) {
      end = r.U32();
      if (end < previous_end) return Fail(Where() + "has decreasing offsets");
      previous_end = end;
    }
    const std::string_view bytes = r.Bytes(previous_end);
    if (!r.ok()) return Fail(Where() + "is shorter than its token offsets");
    token_bytes->assign(bytes);
    return true;
  }

 private:
  SectionReader sections_;
};

}  // namespace llm::tokenizer
