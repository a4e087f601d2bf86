// Letter / number / whitespace / other: the only Unicode facts the GPT-2
// pre-tokenizer regex asks about (\p{L}, \p{N}, \s). The tables come from the
// compiled tokenizer file, so the runtime needs no Unicode library.

#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace llm::tokenizer {

enum class CharClass : uint8_t { kOther, kLetter, kNumber, kWhitespace };

struct CodePointRange {
  char32_t first;
  char32_t last;  // inclusive
};

class CodePointClassifier {
 public:
  // Each list must be sorted, within U+0000..U+10FFFF, and no code point may
  // be in two ranges (of one list or of different lists). Returns nullopt
  // and sets *error otherwise.
  static std::optional<CodePointClassifier> Create(
      const std::vector<CodePointRange>& letters,
      const std::vector<CodePointRange>& numbers,
      const std::vector<CodePointRange>& whitespace, std::string* error);

  CharClass Classify(char32_t code_point) const {
    if (code_point < kDirectLimit) {
      return static_cast<CharClass>(direct_[code_point]);
    }
    return ClassifyBeyondBmp(code_point);
  }

 private:
  // The BMP is looked up directly (64 KiB): nearly all text lives there.
  static constexpr char32_t kDirectLimit = 0x10000;

  struct ClassifiedRange {
    char32_t first;
    char32_t last;
    CharClass char_class;
  };

  CodePointClassifier() = default;
  CharClass ClassifyBeyondBmp(char32_t code_point) const;

  std::vector<uint8_t> direct_;
  std::vector<ClassifiedRange> beyond_bmp_;  // sorted, disjoint
};

}  // namespace llm::tokenizer
