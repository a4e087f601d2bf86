#include "tokenizer/runtime/utf8.h"

namespace llm::tokenizer {

void AppendUtf8Lossy(std::string_view bytes, std::string* out) {
  constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";
  out->reserve(out->size() + bytes.size());
  // Copies runs of valid text in one go; decoded text is nearly always valid.
  size_t valid_start = 0;
  size_t i = 0;
  while (i < bytes.size()) {
    if (static_cast<unsigned char>(bytes[i]) < 0x80) {
      ++i;
      continue;
    }
    const Utf8Char c = DecodeUtf8(bytes.substr(i));
    if (!c.valid) {
      out->append(bytes.substr(valid_start, i - valid_start));
      out->append(kReplacementCharacter);
      valid_start = i + c.length;
    }
    i += c.length;
  }
  out->append(bytes.substr(valid_start));
}

}  // namespace llm::tokenizer
