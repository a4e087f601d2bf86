#include "tokenizer/runtime/code_point_classifier.h"

#include <algorithm>

namespace llm::tokenizer {

std::optional<CodePointClassifier> CodePointClassifier::Create(
    const std::vector<CodePointRange>& letters,
    const std::vector<CodePointRange>& numbers,
    const std::vector<CodePointRange>& whitespace, std::string* error) {
  std::vector<ClassifiedRange> all;
  for (const auto& [ranges, char_class] :
       {std::pair{&letters, CharClass::kLetter},
        std::pair{&numbers, CharClass::kNumber},
        std::pair{&whitespace, CharClass::kWhitespace}}) {
    for (const CodePointRange& range : *ranges) {
      all.push_back({range.first, range.last, char_class});
    }
  }
  std::sort(all.begin(), all.end(),
            [](const ClassifiedRange& a, const ClassifiedRange& b) {
              return a.first < b.first;
            });
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i].first > all[i].last || all[i].last > 0x10FFFF) {
      *error = "code point range out of order or beyond U+10FFFF";
      return std::nullopt;
    }
    if (i > 0 && all[i].first <= all[i - 1].last) {
      *error = "code point ranges overlap";
      return std::nullopt;
    }
  }

  CodePointClassifier classifier;
  classifier.direct_.assign(kDirectLimit,
                            static_cast<uint8_t>(CharClass::kOther));
  for (const ClassifiedRange& range : all) {
    for (char32_t c = range.first; c <= range.last && c < kDirectLimit; ++c) {
      classifier.direct_[c] = static_cast<uint8_t>(range.char_class);
    }
    if (range.last >= kDirectLimit) {
      classifier.beyond_bmp_.push_back(
          {std::max(range.first, kDirectLimit), range.last, range.char_class});
    }
  }
  return classifier;
}

CharClass CodePointClassifier::ClassifyBeyondBmp(char32_t code_point) const {
  // The last range that starts at or before code_point, if it reaches it.
  auto after = std::upper_bound(
      beyond_bmp_.begin(), beyond_bmp_.end(), code_point,
      [](char32_t c, const ClassifiedRange& range) { return c < range.first; });
  if (after == beyond_bmp_.begin()) return CharClass::kOther;
  const ClassifiedRange& range = *(after - 1);
  return code_point <= range.last ? range.char_class : CharClass::kOther;
}

}  // namespace llm::tokenizer
