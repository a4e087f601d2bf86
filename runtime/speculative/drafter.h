// A source of draft tokens for speculative decoding: given what the
// conversation holds so far, guess the tokens that come next. The runner
// verifies a draft in one forward call and keeps the longest prefix the model
// agrees with, so a bad guess costs time, never correctness.
#pragma once

#include <cstdint>

namespace llm {

class Drafter {
 public:
  virtual ~Drafter() = default;

  // Writes up to `max_tokens` guesses for the tokens after history[size - 1]
  // into `draft` and returns how many (0: no guess). Called once per decode
  // step on the generating thread, so it must not allocate.
  virtual int64_t Propose(const int64_t* history, int64_t size,
                          int64_t max_tokens, int64_t* draft) = 0;
};

}  // namespace llm
