// Finds added tokens (<|im_start|>, <|endoftext|>, ...) in raw text, the way
// tokenizers' AddedVocabulary does before any pre-tokenization: scanning left
// to right, the longest token that starts at the first position where any
// token starts ("leftmost-longest"). The text between matches is ordinary
// text.

#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace llm::tokenizer {

class AddedTokenMatcher {
 public:
  struct Token {
    std::string content;  // non-empty
    int32_t id;
  };

  explicit AddedTokenMatcher(std::vector<Token> tokens);

  bool empty() const { return empty_; }

  // Calls on_text(std::string_view) for each non-empty stretch of ordinary
  // text and on_token(int32_t id) for each added token, in text order.
  template <typename OnText, typename OnToken>
  void Split(std::string_view text, OnText&& on_text,
             OnToken&& on_token) const {
    size_t text_start = 0;
    size_t position = 0;
    while (position < text.size()) {
      const auto first = static_cast<unsigned char>(text[position]);
      if (by_first_byte_[first].empty()) {
        ++position;
        continue;
      }
      const Token* match = LongestMatch(text.substr(position));
      if (match == nullptr) {
        ++position;
        continue;
      }
      if (position > text_start) {
        on_text(text.substr(text_start, position - text_start));
      }
      on_token(match->id);
      position += match->content.size();
      text_start = position;
    }
    if (text.size() > text_start) on_text(text.substr(text_start));
  }

 private:
  // The longest token that `text` starts with, or nullptr.
  const Token* LongestMatch(std::string_view text) const;

  // Tokens by their first byte, longest first.
  std::array<std::vector<Token>, 256> by_first_byte_;
  bool empty_ = true;
};

}  // namespace llm::tokenizer
