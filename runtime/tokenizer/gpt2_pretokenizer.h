// Splits text into the pieces that GPT-2's pre-tokenizer regex matches,
//
//   's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//
// without a regex engine: the alternatives are tried in order at each
// position, as Oniguruma (tokenizers' engine) does, and since every character
// is matched by some alternative the pieces tile the text. BPE then runs on
// each piece separately.
//
// Input need not be valid UTF-8 (tokenizers only ever sees valid text): each
// maximal invalid subpart is one character of class "other", so it joins a
// run of punctuation and symbols, and its bytes reach BPE unchanged.

#pragma once

#include <cstddef>
#include <string_view>
#include <utility>

#include "runtime/tokenizer/code_point_classifier.h"

namespace llm::tokenizer {

class Gpt2PreTokenizer {
 public:
  explicit Gpt2PreTokenizer(CodePointClassifier classifier)
      : classifier_(std::move(classifier)) {}

  // Calls on_piece(std::string_view) for each piece of `text`, in order.
  template <typename OnPiece>
  void Split(std::string_view text, OnPiece&& on_piece) const {
    while (!text.empty()) {
      const size_t length = PieceLength(text);
      on_piece(text.substr(0, length));
      text.remove_prefix(length);
    }
  }

  // Bytes in the piece that the regex matches at the start of non-empty
  // `text`.
  size_t PieceLength(std::string_view text) const;

 private:
  struct ClassifiedChar {
    CharClass char_class;
    size_t length;
  };

  ClassifiedChar CharAt(std::string_view text, size_t position) const;
  // End of the run of `char_class` characters that starts at `position`.
  size_t RunEnd(std::string_view text, size_t position,
                CharClass char_class) const;

  CodePointClassifier classifier_;
};

}  // namespace llm::tokenizer
