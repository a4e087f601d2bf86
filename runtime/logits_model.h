// What decoding needs of a program: feed tokens at KV-cache positions and read
// the logits they produce. LlmProgram is the implementation; tests hand the
// runner a fake with the same cache semantics.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace llm {

// What the exporter recorded in the program's constant methods.
struct ProgramLimits {
  int64_t max_seq_len = 0;      // tokens one forward call accepts
  int64_t max_context_len = 0;  // KV cache length
  int64_t vocab_size = 0;
  int64_t bos_id = -1;
  std::vector<int64_t> eos_ids;
  // How many positions of a call the program can return logits for: 1 for
  // a program that returns only the last, more for one whose forward takes a
  // rows input (get_logit_rows), which verifies a speculative draft in one
  // call.
  int64_t logit_rows = 1;
};

class LogitsModel {
 public:
  virtual ~LogitsModel() = default;

  virtual const ProgramLimits& limits() const = 0;

  // Feeds tokens at KV positions [start, start + count) and returns the
  // logits of the last `rows` of them, one row of vocab_size floats each, in
  // order (valid until the next call). Attention at position p reads cache
  // rows [0, p] only, so rows past the next start are overwritten before
  // they are read: a caller rolls back by starting lower. count must be in
  // [1, max_seq_len] and rows in [1, min(count, logit_rows)]. On failure
  // returns null + error.
  virtual const float* ForwardRows(const int64_t* tokens, int64_t count,
                                   int64_t start, int64_t rows,
                                   std::string* error) = 0;

  // Graph executions so far. A call is one execution, or several when the
  // implementation splits it (a prompt chunk the program cannot take whole):
  // what the runner's stats count per phase.
  virtual int64_t executions() const = 0;

  // The last token's logits.
  const float* Forward(const int64_t* tokens, int64_t count, int64_t start,
                       std::string* error) {
    return ForwardRows(tokens, count, start, 1, error);
  }
};

}  // namespace llm
