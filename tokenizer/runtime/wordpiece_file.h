// Reads the compiled WordPiece tokenizer file written by
// tokenizer/compiler/compile_wordpiece.py (whose docstring specifies the
// format).
//
// The file is untrusted input: every count, offset and id is checked before
// use, so a truncated or corrupt file gives an error message, never a crash
// or an out-of-range read later.

#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/runtime/code_point_classifier.h"

namespace llm::tokenizer {

struct WordPieceFileContents {
  // Token i is token_bytes[token_ends[i-1], token_ends[i]).
  std::string token_bytes;
  std::vector<uint32_t> token_ends;
  int32_t unk_id = -1;
  int32_t cls_id = -1;
  int32_t sep_id = -1;
  int32_t pad_id = -1;
  uint32_t max_input_chars_per_word = 0;
  std::string continuing_prefix;  // "##"
  struct AddedToken {
    int32_t id;
    std::string content;
  };
  std::vector<AddedToken> added_tokens;
  // BertNormalizer, per code point.
  std::vector<CodePointRange> removed;
  std::vector<CodePointRange> to_space;
  std::vector<CodePointRange> isolated;
  struct Replacement {
    char32_t code_point;
    std::u32string text;
  };
  std::vector<Replacement> replacements;  // sorted by code_point
  // BertPreTokenizer classes.
  std::vector<CodePointRange> whitespace;
  std::vector<CodePointRange> punctuation;
};

// Parses a whole file's bytes. Returns nullopt and sets *error (what is
// wrong) if they are not a valid version-1 WordPiece tokenizer file.
std::optional<WordPieceFileContents> ParseWordPieceFile(std::string_view bytes,
                                                        std::string* error);

}  // namespace llm::tokenizer
