// Reads the compiled tokenizer file written by
// tokenizer/compiler/compile_tokenizer.py (whose docstring specifies the
// format).
//
// The file is untrusted input: every count, offset and id is checked before
// use, so a truncated or corrupt file gives an error message, never a crash
// or an out-of-range read later.

#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/runtime/chat_template.h"
#include "tokenizer/runtime/code_point_classifier.h"
#include "tokenizer/runtime/merge_table.h"
#include "tokenizer/runtime/pre_tokenizer.h"

namespace llm::tokenizer {

struct AddedTokenEntry {
  int32_t id;
  std::string content;
  bool special;     // dropped by Decode(..., skip_special_tokens=true)
  bool normalized;  // matched in tokenizers' second pass
};

struct TokenizerFileContents {
  // Token i's bytes are token_bytes[token_ends[i-1], token_ends[i]).
  std::string token_bytes;
  std::vector<uint32_t> token_ends;
  // The token of each single byte; -1 where the vocab has none.
  std::array<int32_t, 256> byte_token_ids;
  std::vector<MergeRule> merges;  // in rank order
  PreTokenizerKind pre_tokenizer = PreTokenizerKind::kGpt2;
  // BPE option (Llama 3): a piece that is a whole token is that token,
  // without running the merges.
  bool ignore_merges = false;
  std::vector<AddedTokenEntry> added_tokens;
  int32_t bos_id = -1;
  int32_t eos_id = -1;
  std::vector<int32_t> stop_ids;
  std::optional<ChatTemplate> chat_template;  // none when the model has none
  std::vector<CodePointRange> letters;
  std::vector<CodePointRange> numbers;
  std::vector<CodePointRange> whitespace;
};

// Parses a whole file's bytes. Returns nullopt and sets *error (a message
// that says what is wrong) if they are not a valid version-1 tokenizer file.
std::optional<TokenizerFileContents> ParseTokenizerFile(std::string_view bytes,
                                                        std::string* error);

}  // namespace llm::tokenizer
