// Builds the answering prompt from a question and retrieved passages, within
// the language model's context budget. Shared by the ask CLI and the Android
// app's RAG seam.
//
// The user message is the passages' text (whitespace runs collapsed: the
// documents are hard-wrapped), then the question. A 135M model answers more
// to the point without source labels in its prompt; ask prints the sources.
//
// Policy when the passages do not all fit (budget = context_tokens -
// max_new_tokens, counted with the model's own tokenizer on the final chat
// prompt):
//   * passages go in by rank, best first, each whole, while the prompt fits;
//   * at the first passage that does not fit, it and every lower-ranked one
//     are left out (a lower-ranked passage never displaces a better one);
//   * if not even the best passage fits whole, it is cut at a word boundary
//     to what does fit, and marked truncated;
//   * the question is never cut: if the question alone does not fit, that is
//     an error (shorten the question or lower max_new_tokens).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "tokenizer/runtime/bpe_tokenizer.h"

namespace llm::rag {

struct PromptOptions {
  int64_t context_tokens = 2048;  // the model's KV-cache length
  int64_t max_new_tokens = 128;   // reserved for the answer
  std::string system_prompt =
      "You answer questions about books from the text the user gives.";
};

struct AssembledPrompt {
  std::vector<int32_t> ids;
  std::string text;          // the chat prompt the ids encode
  std::string user_message;  // its user message: passages, then question
  size_t passages_used = 0;  // the first passages_used, by rank
  bool last_passage_truncated = false;
  int64_t budget_tokens = 0;
};

// False + error (what to change) if the question alone exceeds the budget
// or the tokenizer has no chat template.
bool AssemblePrompt(const tokenizer::BpeTokenizer& tokenizer,
                    std::string_view question,
                    const std::vector<std::string_view>& passages,
                    const PromptOptions& options, AssembledPrompt* out,
                    std::string* error);

}  // namespace llm::rag
