#include "runtime/tokenizer/gpt2_pretokenizer.h"

#include "runtime/tokenizer/utf8.h"

namespace llm::tokenizer {
namespace {

// Length of the contraction ('s 't 're 've 'm 'll 'd, lower case only, as in
// GPT-2's regex) at the start of `text`, or 0.
size_t ContractionLength(std::string_view text) {
  if (text.size() < 2 || text[0] != '\'') return 0;
  switch (text[1]) {
    case 's':
    case 't':
    case 'm':
    case 'd':
      return 2;
    case 'r':
    case 'v':
      return text.size() >= 3 && text[2] == 'e' ? 3 : 0;
    case 'l':
      return text.size() >= 3 && text[2] == 'l' ? 3 : 0;
    default:
      return 0;
  }
}

}  // namespace

Gpt2PreTokenizer::ClassifiedChar Gpt2PreTokenizer::CharAt(
    std::string_view text, size_t position) const {
  const auto lead = static_cast<unsigned char>(text[position]);
  if (lead < 0x80) return {classifier_.Classify(lead), 1};
  const Utf8Char c = DecodeUtf8(text.substr(position));
  if (!c.valid) return {CharClass::kOther, c.length};
  return {classifier_.Classify(c.code_point), c.length};
}

size_t Gpt2PreTokenizer::RunEnd(std::string_view text, size_t position,
                                CharClass char_class) const {
  while (position < text.size()) {
    const ClassifiedChar c = CharAt(text, position);
    if (c.char_class != char_class) break;
    position += c.length;
  }
  return position;
}

size_t Gpt2PreTokenizer::PieceLength(std::string_view text) const {
  // 's|'t|'re|'ve|'m|'ll|'d
  if (const size_t length = ContractionLength(text)) return length;

  //  ?\p{L}+ |  ?\p{N}+ |  ?[^\s\p{L}\p{N}]+ : only U+0020 can lead.
  const ClassifiedChar first = CharAt(text, 0);
  if (text[0] == ' ' && text.size() > 1) {
    const ClassifiedChar second = CharAt(text, 1);
    if (second.char_class != CharClass::kWhitespace) {
      return RunEnd(text, 1 + second.length, second.char_class);
    }
  }
  if (first.char_class != CharClass::kWhitespace) {
    return RunEnd(text, first.length, first.char_class);
  }

  // \s+(?!\S) : the whitespace run, less its last character when a
  // non-space follows (that character then leads the next piece, e.g. the
  // space of " word"); \s+ : the single whitespace character before a
  // non-space.
  size_t end = first.length;
  size_t last_char_start = 0;
  while (end < text.size()) {
    const ClassifiedChar c = CharAt(text, end);
    if (c.char_class != CharClass::kWhitespace) break;
    last_char_start = end;
    end += c.length;
  }
  if (end == text.size() || last_char_start == 0) return end;
  return last_char_start;
}

}  // namespace llm::tokenizer
