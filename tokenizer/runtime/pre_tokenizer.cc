#include "tokenizer/runtime/pre_tokenizer.h"

#include "tokenizer/runtime/utf8.h"

namespace llm::tokenizer {
namespace {

// Length of the contraction ('s 't 're 've 'm 'll 'd) at the start of
// `text`, or 0. GPT-2's regex matches lower case only; Llama 3's (?i:...)
// any case, and, as Oniguruma folds case by Unicode, 'ſ' (U+017F LONG S)
// for s.
size_t ContractionLength(std::string_view text, bool ignore_case) {
  if (text.size() < 2 || text[0] != '\'') return 0;
  const auto lower = [&](size_t i) {
    const char c = text[i];
    return ignore_case && c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
  };
  if (ignore_case && text.substr(1, 2) == "\xC5\xBF") return 3;
  switch (lower(1)) {
    case 's':
    case 't':
    case 'm':
    case 'd':
      return 2;
    case 'r':
    case 'v':
      return text.size() >= 3 && lower(2) == 'e' ? 3 : 0;
    case 'l':
      return text.size() >= 3 && lower(2) == 'l' ? 3 : 0;
    default:
      return 0;
  }
}

bool IsLineBreak(char c) { return c == '\r' || c == '\n'; }

}  // namespace

PreTokenizer::ClassifiedChar PreTokenizer::CharAt(std::string_view text,
                                                  size_t position) const {
  const auto lead = static_cast<unsigned char>(text[position]);
  if (lead < 0x80) return {classifier_.Classify(lead), 1};
  const Utf8Char c = DecodeUtf8(text.substr(position));
  if (!c.valid) return {CharClass::kOther, c.length};
  return {classifier_.Classify(c.code_point), c.length};
}

size_t PreTokenizer::RunEnd(std::string_view text, size_t position,
                            CharClass char_class) const {
  while (position < text.size()) {
    const ClassifiedChar c = CharAt(text, position);
    if (c.char_class != char_class) break;
    position += c.length;
  }
  return position;
}

size_t PreTokenizer::PieceLength(std::string_view text) const {
  switch (kind_) {
    case PreTokenizerKind::kLlama3:
      return Llama3PieceLength(text, 3);
    case PreTokenizerKind::kQwen2:
      return Llama3PieceLength(text, 1);
    case PreTokenizerKind::kGpt2:
      break;
  }
  return Gpt2PieceLength(text);
}

size_t PreTokenizer::Gpt2PieceLength(std::string_view text) const {
  // 's|'t|'re|'ve|'m|'ll|'d
  if (const size_t length = ContractionLength(text, false)) return length;

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
  return WhitespaceLength(text);
}

size_t PreTokenizer::Llama3PieceLength(std::string_view text,
                                       int max_digits) const {
  // (?i:'s|'t|'re|'ve|'m|'ll|'d)
  if (const size_t length = ContractionLength(text, true)) return length;

  // [^\r\n\p{L}\p{N}]?\p{L}+ : a letter run, led by at most one character
  // that is no line break, letter or digit (a space, a tab, punctuation).
  const ClassifiedChar first = CharAt(text, 0);
  if (first.char_class == CharClass::kLetter) {
    return RunEnd(text, first.length, CharClass::kLetter);
  }
  if (first.char_class != CharClass::kNumber && !IsLineBreak(text[0]) &&
      first.length < text.size() &&
      CharAt(text, first.length).char_class == CharClass::kLetter) {
    return RunEnd(text, first.length, CharClass::kLetter);
  }

  // \p{N}{1,3} (Qwen2: \p{N})
  if (first.char_class == CharClass::kNumber) {
    size_t end = 0;
    for (int digits = 0; digits < max_digits && end < text.size(); ++digits) {
      const ClassifiedChar c = CharAt(text, end);
      if (c.char_class != CharClass::kNumber) break;
      end += c.length;
    }
    return end;
  }

  //  ?[^\s\p{L}\p{N}]+[\r\n]* : only U+0020 can lead.
  size_t start = 0;
  if (text[0] == ' ' && text.size() > 1 &&
      CharAt(text, 1).char_class == CharClass::kOther) {
    start = 1;
  }
  if (CharAt(text, start).char_class == CharClass::kOther) {
    size_t end = RunEnd(text, start, CharClass::kOther);
    while (end < text.size() && IsLineBreak(text[end])) ++end;
    return end;
  }

  // \s*[\r\n]+ : a whitespace run with a line break in it matches up to and
  // including its last line break (\s* backs off until [\r\n]+ can match).
  const size_t run_end = RunEnd(text, 0, CharClass::kWhitespace);
  for (size_t i = run_end; i > 0; --i) {
    if (IsLineBreak(text[i - 1])) return i;
  }
  return WhitespaceLength(text);
}

size_t PreTokenizer::WhitespaceLength(std::string_view text) const {
  // \s+(?!\S) : the whitespace run, less its last character when a
  // non-space follows (that character then leads the next piece, e.g. the
  // space of " word"); \s+ : the single whitespace character before a
  // non-space.
  size_t end = CharAt(text, 0).length;
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
