// Prompt-lookup drafting: the last few tokens of the conversation, found
// earlier in it, propose what followed them there. Replies that quote their
// context (answers from retrieved passages, rewrites, code edits) repeat long
// runs of it, and those runs cost one verify call instead of one step each.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/speculative/drafter.h"

namespace llm {

struct PromptLookupOptions {
  // The longest and shortest suffix looked up. Longer matches come first: they
  // predict better. A 1-token match proposes too often in free text.
  int64_t max_ngram = 4;
  int64_t min_ngram = 2;
};

class PromptLookupDrafter : public Drafter {
 public:
  explicit PromptLookupDrafter(const PromptLookupOptions& options = {});

  // The most recent earlier occurrence of the longest matching suffix wins:
  // nearby text is the likeliest to be continued.
  int64_t Propose(const int64_t* history, int64_t size, int64_t max_tokens,
                  int64_t* draft) override;

 private:
  PromptLookupOptions options_;
};

// Empty when the options are usable, else what is wrong and how to fix it.
std::string ValidatePromptLookupOptions(const PromptLookupOptions& options);

}  // namespace llm
