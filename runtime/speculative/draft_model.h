// Drafting with a smaller program that shares the target's tokenizer: the
// draft model decodes greedily a few tokens ahead, and the target verifies
// them in one call. Its guesses are good wherever the two models agree, not
// only where the reply quotes its context, so it helps free text too.
//
// The drafter keeps the draft model's KV cache in step with the conversation
// itself. It remembers which tokens the cache holds; each call feeds only
// what the cache does not hold yet (the target's verdict on the last draft,
// or a whole new turn), rolling back to the longest prefix both share.
//
// Each draft token costs a step of the draft model; how many to ask for is
// the caller's choice (the runner's governor fits it to what the target
// kept).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/logits_model.h"
#include "runtime/speculative/drafter.h"

namespace llm {

class DraftModelDrafter : public Drafter {
 public:
  // `model` must outlive the drafter; nothing else may feed it meanwhile.
  explicit DraftModelDrafter(LogitsModel* model);

  // Proposes up to max_tokens greedy tokens, fewer near the draft model's
  // context end. On a failed forward call it returns 0 and error() says why.
  int64_t Propose(const int64_t* history, int64_t size, int64_t max_tokens,
                  int64_t* draft) override;

  // Feeds what the draft's cache lacks of `history`, so that the first
  // draft costs one step, not a prefill: the runner calls it beside the
  // target's prefill. False on a failed forward call (see error()); a
  // history longer than the draft's context is left to Propose.
  bool Prefill(const int64_t* history, int64_t size);

  const std::string& error() const { return error_; }
  // Forward calls made on the draft model so far.
  int64_t calls() const { return calls_; }

 private:
  // Feeds tokens[0, count) at `start` in chunks of max_seq_len; the last
  // one's logits, or null.
  const float* Feed(const int64_t* tokens, int64_t count, int64_t start);
  // Brings the cache to `history` (size >= 1); the last token's logits, or
  // null.
  const float* CatchUp(const int64_t* history, int64_t size);

  LogitsModel* model_;
  // The tokens at cache positions [0, cached_.size()), reserved whole so
  // that drafting never allocates.
  std::vector<int64_t> cached_;
  std::string error_;
  int64_t calls_ = 0;
};

}  // namespace llm
