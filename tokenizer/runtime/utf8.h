// UTF-8 decoding with the error handling Hugging Face's Rust code has.
//
// Invalid input is measured in "maximal subparts" (Unicode 16.0, section
// 3.9, U+FFFD substitution): the longest prefix of a would-be sequence that is
// still valid, or one byte if there is none. That is the unit that Rust's
// String::from_utf8_lossy (tokenizers' decoder) and Python's
// bytes.decode(errors="replace") turn into one U+FFFD.

#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace llm::tokenizer {

struct Utf8Char {
  char32_t code_point;  // meaningless when !valid
  size_t length;        // bytes; >= 1 whenever the input was not empty
  bool valid;
};

// Decodes the character at the start of `text`, which must not be empty.
// Overlong forms, surrogates and code points above U+10FFFF are invalid.
inline Utf8Char DecodeUtf8(std::string_view text) {
  const auto byte = [&](size_t i) {
    return static_cast<unsigned char>(text[i]);
  };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return {lead, 1, true};
  size_t continuation_bytes;
  // The first continuation byte's range is what excludes overlong forms
  // (E0, F0), surrogates (ED) and code points past U+10FFFF (F4).
  unsigned char first_low = 0x80, first_high = 0xBF;
  char32_t code_point;
  if (lead < 0xC2) {
    return {0, 1, false};  // a stray continuation byte, or C0/C1 (overlong)
  } else if (lead < 0xE0) {
    continuation_bytes = 1;
    code_point = lead & 0x1F;
  } else if (lead < 0xF0) {
    continuation_bytes = 2;
    code_point = lead & 0x0F;
    if (lead == 0xE0) first_low = 0xA0;
    if (lead == 0xED) first_high = 0x9F;
  } else if (lead < 0xF5) {
    continuation_bytes = 3;
    code_point = lead & 0x07;
    if (lead == 0xF0) first_low = 0x90;
    if (lead == 0xF4) first_high = 0x8F;
  } else {
    return {0, 1, false};
  }
  for (size_t i = 1; i <= continuation_bytes; ++i) {
    const unsigned char low = i == 1 ? first_low : 0x80;
    const unsigned char high = i == 1 ? first_high : 0xBF;
    if (i >= text.size() || byte(i) < low || byte(i) > high) {
      return {0, i, false};
    }
    code_point = (code_point << 6) | (byte(i) & 0x3F);
  }
  return {code_point, continuation_bytes + 1, true};
}

// Appends `bytes` to `out` with every maximal invalid subpart replaced by
// U+FFFD, as String::from_utf8_lossy does.
void AppendUtf8Lossy(std::string_view bytes, std::string* out);

}  // namespace llm::tokenizer
