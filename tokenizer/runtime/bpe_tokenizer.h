// Byte-level BPE tokenizer (GPT-2 / SmolLM2 style) that gives the same ids as
// Hugging Face tokenizers' Tokenizer.encode(text, add_special_tokens=False).
//
// It reads the file that tokenizer/compiler/compile_tokenizer.py makes from a
// tokenizer.json. Encoding is, as in tokenizers:
//   1. added tokens (<|im_start|>, ...) are cut out of the raw text;
//   2. the rest is split by the pre-tokenizer's regex: GPT-2's, Llama 3's
//      or Qwen2's (pre_tokenizer.h);
//   3. each piece's bytes start as single-byte tokens and the adjacent pair
//      with the lowest merge rank is merged, leftmost first, until none is
//      left (with ignore_merges, as Llama 3 sets, a piece that is a whole
//      token in the vocab is that token).
// Nothing is added around the text: no BOS, as SmolLM2's post-processor adds
// none either (its chat template starts with <|im_start|> itself).
//
// Instances are immutable after loading; Encode and Decode are const and
// may be called from several threads at once.

#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tokenizer/runtime/added_token_matcher.h"
#include "tokenizer/runtime/chat_template.h"
#include "tokenizer/runtime/merge_table.h"
#include "tokenizer/runtime/pre_tokenizer.h"

namespace llm::tokenizer {

class BpeTokenizer {
 public:
  // Loads a compiled tokenizer file. Returns nullopt and sets *error (which
  // names the file and the problem) if it is missing, truncated or corrupt.
  static std::optional<BpeTokenizer> FromFile(const std::string& path,
                                              std::string* error);
  // The same, from the file's bytes.
  static std::optional<BpeTokenizer> FromBytes(std::string_view bytes,
                                               std::string* error);

  // Token ids of `text`; added tokens written in the text are recognised.
  //
  // `text` should be UTF-8 (tokenizers only accepts valid UTF-8). Invalid
  // bytes are kept, not replaced: each maximal invalid subpart counts as one
  // punctuation-like character when splitting, and its bytes are encoded
  // like any others, so the concatenated TokenBytes of the result still give
  // back `text` (minus the few bytes the vocab has no token for, which
  // tokenizers drops too, e.g. 0x04 or 0xF5..0xFF in SmolLM2).
  std::vector<int32_t> Encode(std::string_view text) const;

  // Text of `ids`, as tokenizers' decode gives it: the tokens' bytes joined,
  // each invalid UTF-8 subpart replaced by U+FFFD, ids outside the vocab
  // ignored. Special tokens are kept unless skip_special_tokens (note that
  // the Python Tokenizer.decode skips them by default).
  std::string Decode(const std::vector<int32_t>& ids,
                     bool skip_special_tokens = false) const;

  // The raw bytes of one token (empty for an id outside the vocab). A token
  // can end inside a UTF-8 character, so a streaming caller must hold back
  // an incomplete tail until the next token completes it.
  std::string_view TokenBytes(int32_t id) const;

  bool IsSpecial(int32_t id) const;
  bool IsStop(int32_t id) const;

  int32_t vocab_size() const {
    return static_cast<int32_t>(token_ends_.size());
  }
  // -1 when the tokenizer has none.
  int32_t bos_id() const { return bos_id_; }
  int32_t eos_id() const { return eos_id_; }
  // eos plus the end-of-turn / end-of-text markers the vocab has, sorted.
  const std::vector<int32_t>& stop_ids() const { return stop_ids_; }
  // nullptr when the model has no chat template.
  const ChatTemplate* chat_template() const {
    return chat_template_ ? &*chat_template_ : nullptr;
  }

 private:
  struct EncodeState;

  BpeTokenizer(MergeTable merges, PreTokenizer pre_tokenizer,
               AddedTokenMatcher raw_added_tokens,
               AddedTokenMatcher normalized_added_tokens)
      : merges_(std::move(merges)),
        pre_tokenizer_(std::move(pre_tokenizer)),
        raw_added_tokens_(std::move(raw_added_tokens)),
        normalized_added_tokens_(std::move(normalized_added_tokens)) {}

  void EncodeOrdinaryText(std::string_view text, EncodeState& state,
                          std::vector<int32_t>& ids) const;
  void EncodePiece(std::string_view piece, EncodeState& state,
                   std::vector<int32_t>& ids) const;
  // Runs the merges on `piece` and appends the resulting ids.
  void MergeBytes(std::string_view piece, EncodeState& state,
                  std::vector<int32_t>& ids) const;

  std::string token_bytes_;
  std::vector<uint32_t> token_ends_;
  std::array<int32_t, 256> byte_token_ids_{};
  std::vector<bool> is_special_;
  MergeTable merges_;
  PreTokenizer pre_tokenizer_;
  // Only with ignore_merges: each token's bytes -> its id.
  std::unordered_map<std::string, int32_t> whole_tokens_;
  // tokenizers matches added tokens in two passes: those with
  // normalized=false in the raw text, then those with normalized=true in
  // what is left (after normalization, which these tokenizers do not have).
  AddedTokenMatcher raw_added_tokens_;
  AddedTokenMatcher normalized_added_tokens_;
  int32_t bos_id_ = -1;
  int32_t eos_id_ = -1;
  std::vector<int32_t> stop_ids_;
  std::optional<ChatTemplate> chat_template_;
};

}  // namespace llm::tokenizer
