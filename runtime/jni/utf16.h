// UTF-8 <-> UTF-16 for the JNI bridge. Java strings are UTF-16; JNI's own
// *UTF* functions use "modified UTF-8", which encodes U+0000 and every
// character outside the BMP (emoji) differently from the tokenizer's UTF-8.
#pragma once

#include <string>
#include <string_view>

namespace llm {

// Unpaired surrogates become U+FFFD.
std::string Utf16ToUtf8(std::u16string_view text);

// Invalid or truncated sequences become U+FFFD, one per bad byte.
std::u16string Utf8ToUtf16(std::string_view text);

}  // namespace llm
