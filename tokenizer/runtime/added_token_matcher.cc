#include "tokenizer/runtime/added_token_matcher.h"

#include <algorithm>

namespace llm::tokenizer {

AddedTokenMatcher::AddedTokenMatcher(std::vector<Token> tokens) {
  for (Token& token : tokens) {
    if (token.content.empty()) continue;
    const auto first = static_cast<unsigned char>(token.content[0]);
    by_first_byte_[first].push_back(std::move(token));
    empty_ = false;
  }
  for (std::vector<Token>& bucket : by_first_byte_) {
    std::stable_sort(bucket.begin(), bucket.end(),
                     [](const Token& a, const Token& b) {
                       return a.content.size() > b.content.size();
                     });
  }
}

const AddedTokenMatcher::Token* AddedTokenMatcher::LongestMatch(
    std::string_view text) const {
  for (const Token& token :
       by_first_byte_[static_cast<unsigned char>(text[0])]) {
    if (text.substr(0, token.content.size()) == token.content) return &token;
  }
  return nullptr;
}

}  // namespace llm::tokenizer
