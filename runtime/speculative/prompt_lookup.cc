#include "runtime/speculative/prompt_lookup.h"

#include <algorithm>

namespace llm {

std::string ValidatePromptLookupOptions(const PromptLookupOptions& options) {
  if (options.min_ngram < 1) return "the shortest n-gram must be at least 1";
  if (options.max_ngram < options.min_ngram) {
    return "the longest n-gram must be at least the shortest";
  }
  return "";
}

PromptLookupDrafter::PromptLookupDrafter(const PromptLookupOptions& options)
    : options_(options) {}

int64_t PromptLookupDrafter::Propose(const int64_t* history, int64_t size,
                                     int64_t max_tokens, int64_t* draft) {
  if (max_tokens < 1) return 0;
  for (int64_t n = std::min(options_.max_ngram, size - 1);
       n >= options_.min_ngram; --n) {
    const int64_t* suffix = history + size - n;
    // A match must end before the suffix starts, and leave at least one
    // token after it to propose.
    for (int64_t end = size - 1; end >= n; --end) {
      const int64_t* candidate = history + end - n;
      if (!std::equal(suffix, suffix + n, candidate)) continue;
      const int64_t count = std::min(max_tokens, size - end);
      std::copy(history + end, history + end + count, draft);
      return count;
    }
  }
  return 0;
}

}  // namespace llm
