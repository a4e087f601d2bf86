// Splits text into the pieces a byte-level BPE tokenizer's pre-tokenizer
// regex matches, for the three regexes the runtime implements:
//
//   GPT-2 (SmolLM2):
//     's|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+|
//     ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+
//   Llama 3 (cl100k-style):
//     (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
//      ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//   Qwen2 (Qwen2.5, Qwen3): Llama 3's, with \p{N} one digit at a time.
//
// without a regex engine: the alternatives are tried in order at each
// position, as Oniguruma (tokenizers' engine) does, and since every character
// is matched by some alternative the pieces tile the text. BPE then runs on
// each piece separately. tokenizer/compiler/compile_tokenizer.py accepts a
// tokenizer only when its regex is exactly one of these, so a pre-tokenizer
// the runtime does not implement is refused, never split differently.
//
// Input need not be valid UTF-8 (tokenizers only ever sees valid text): each
// maximal invalid subpart is one character of class "other", so it joins a
// run of punctuation and symbols, and its bytes reach BPE unchanged.

#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>

#include "tokenizer/runtime/code_point_classifier.h"

namespace llm::tokenizer {

// The compiled tokenizer file's PRTK kind.
enum class PreTokenizerKind : uint32_t { kGpt2 = 1, kLlama3 = 2, kQwen2 = 3 };

class PreTokenizer {
 public:
  PreTokenizer(PreTokenizerKind kind, CodePointClassifier classifier)
      : kind_(kind), classifier_(std::move(classifier)) {}

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

  PreTokenizerKind kind() const { return kind_; }

 private:
  struct ClassifiedChar {
    CharClass char_class;
    size_t length;
  };

  ClassifiedChar CharAt(std::string_view text, size_t position) const;
  // End of the run of `char_class` characters that starts at `position`.
  size_t RunEnd(std::string_view text, size_t position,
                CharClass char_class) const;
  size_t Gpt2PieceLength(std::string_view text) const;
  // Llama 3's regex; Qwen2's when max_digits is 1.
  size_t Llama3PieceLength(std::string_view text, int max_digits) const;
  // \s+(?!\S)|\s+ at a whitespace character, the last alternatives of all
  // three regexes.
  size_t WhitespaceLength(std::string_view text) const;

  PreTokenizerKind kind_;
  CodePointClassifier classifier_;
};

}  // namespace llm::tokenizer
