// Turns a stream of token byte strings into complete UTF-8 text.
//
// Byte-level BPE splits multi-byte characters across tokens (an emoji is often
// three tokens), so printing each token's bytes as they come would emit
// broken characters. This holds back an incomplete trailing sequence until the
// bytes that finish it arrive.
#pragma once

#include <string>
#include <string_view>

namespace llm {

class Utf8Stream {
 public:
  // Appends bytes; returns the longest prefix of pending text that ends on a
  // character boundary (possibly empty).
  std::string Push(std::string_view bytes);
  // Whatever is left at the end of generation, complete or not.
  std::string Flush();

 private:
  std::string pending_;
};

}  // namespace llm
