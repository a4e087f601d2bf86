// BERT uncased WordPiece tokenizer that gives the same ids as Hugging Face
// tokenizers' Tokenizer.encode(text) on a BERT tokenizer.json (e.g.
// all-MiniLM-L6-v2's), truncated as sentence-transformers truncates.
//
// It reads the file that tokenizer/compiler/compile_wordpiece.py makes from a
// tokenizer.json. Encoding is, as in tokenizers:
//   1. added tokens ([CLS], [MASK], ...) are cut out of the raw text;
//   2. BertNormalizer, per code point: control characters, U+0000 and U+FFFD
//      are removed, whitespace becomes " ", CJK ideographs get a space on
//      each side, accents are stripped (NFD minus Mn) and letters lower-cased;
//   3. BertPreTokenizer: words split at whitespace, and every punctuation
//      character is a word of its own;
//   4. WordPiece: each word, greedily longest-match-first, becomes a token and
//      "##"-prefixed continuations; a word with a part that is not in the
//      vocabulary, or longer than max_input_chars_per_word, is one [UNK];
//   5. [CLS] ids [SEP], the ids cut so that the whole fits max_tokens.
// The Unicode decisions come from tables that tokenizers itself produced at
// build time, so this file holds no Unicode data.
//
// Invalid UTF-8 (which tokenizers cannot receive) is read as U+FFFD, which
// the normalizer removes.
//
// Instances are immutable after loading; Encode is const and may be called
// from several threads at once.

#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer/runtime/added_token_matcher.h"
#include "tokenizer/runtime/code_point_classifier.h"
#include "tokenizer/runtime/wordpiece_file.h"

namespace llm::tokenizer {

// Per-code-point lookup into a small enum: the BMP directly, the rest by
// binary search over ranges.
class CodePointTable {
 public:
  CodePointTable();
  // Sets every code point of `ranges` to `value` (ranges sorted, disjoint).
  void Set(const std::vector<CodePointRange>& ranges, uint8_t value);
  uint8_t Get(char32_t code_point) const {
    if (code_point < kDirectLimit) return direct_[code_point];
    return GetBeyondBmp(code_point);
  }

 private:
  static constexpr char32_t kDirectLimit = 0x10000;
  struct Range {
    char32_t first;
    char32_t last;
    uint8_t value;
  };
  uint8_t GetBeyondBmp(char32_t code_point) const;

  std::vector<uint8_t> direct_;
  std::vector<Range> beyond_bmp_;  // sorted by first
};

class WordPieceTokenizer {
 public:
  // Loads a compiled WordPiece file. Returns nullopt and sets *error (which
  // names the file and the problem) if it is missing, truncated or corrupt.
  static std::optional<WordPieceTokenizer> FromFile(const std::string& path,
                                                    std::string* error);
  static std::optional<WordPieceTokenizer> FromBytes(std::string_view bytes,
                                                     std::string* error);

  // [CLS] <ids of text> [SEP]. With max_tokens > 0 (at least 2) the text's
  // ids are cut so that the result has at most max_tokens ids, as
  // tokenizers' truncation (max_length = max_tokens) does; 0 keeps them all.
  std::vector<int32_t> Encode(std::string_view text,
                              size_t max_tokens = 0) const;

  // The token's text ("##ing" for a continuation), "" outside the vocab.
  std::string_view Token(int32_t id) const;
  int32_t vocab_size() const {
    return static_cast<int32_t>(contents_.token_ends.size());
  }
  int32_t cls_id() const { return contents_.cls_id; }
  int32_t sep_id() const { return contents_.sep_id; }
  int32_t unk_id() const { return contents_.unk_id; }
  int32_t pad_id() const { return contents_.pad_id; }

 private:
  struct WordState;

  explicit WordPieceTokenizer(WordPieceFileContents contents);

  // Normalizes, pre-tokenizes and WordPiece-encodes text without added
  // tokens, appending ids.
  void EncodeText(std::string_view text, WordState& state,
                  std::vector<int32_t>& ids) const;
  void EmitNormalized(char32_t code_point, WordState& state,
                      std::vector<int32_t>& ids) const;
  void EncodeWord(WordState& state, std::vector<int32_t>& ids) const;
  const std::u32string* Replacement(char32_t code_point) const;

  WordPieceFileContents contents_;
  std::unordered_map<std::string, int32_t> ids_by_token_;
  AddedTokenMatcher added_tokens_;
  CodePointTable normalization_;
  CodePointTable pre_tokenization_;
};

}  // namespace llm::tokenizer
