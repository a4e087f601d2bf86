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
// Each draft token costs a step of the draft model, so the draft's length
// follows how much of the last one the target kept: one more than it kept
// after a rejection, two more after a full acceptance. A draft model that
// keeps missing then costs a one-token probe, not a full draft.
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

  const std::string& error() const { return error_; }
  // Forward calls made on the draft model so far.
  int64_t calls() const { return calls_; }
  // The longest draft the next call may propose (before max_tokens).
  int64_t length() const { return length_; }

 private:
  // Feeds tokens[0, count) at `start` in chunks of max_seq_len; the last
  // one's logits, or null.
  const float* Feed(const int64_t* tokens, int64_t count, int64_t start);
  // Sets length_ from how much of the last draft `history` went on with.
  void Adapt(const int64_t* history, int64_t size);

  LogitsModel* model_;
  // The tokens at cache positions [0, cached_.size()), reserved whole so
  // that drafting never allocates.
  std::vector<int64_t> cached_;
  std::string error_;
  int64_t calls_ = 0;
  // The last draft, and the history size it followed; length_ grows from 1
  // up to the caller's max_tokens.
  std::vector<int64_t> last_draft_;
  int64_t last_size_ = -1;
  int64_t length_ = 1 << 20;
};

}  // namespace llm
