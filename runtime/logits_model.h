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
  // How many trailing positions of a call the program returns logits for: 1
  // for a program that returns only the last, more for one that can verify
  // a speculative draft in one call.
  int64_t logit_rows = 1;
};

class LogitsModel {
 public:
  virtual ~LogitsModel() = default;

  virtual const ProgramLimits& limits() const = 0;

  // Feeds tokens at KV positions [start, start + count) and returns the
  // logits of the last min(count, limits().logit_rows) of them, one row of
  // vocab_size floats each, in order (valid until the next call). Attention
  // at position p reads cache rows [0, p] only, so rows past the next start
  // are overwritten before they are read: a caller rolls back by starting
  // lower. count must be in [1, max_seq_len]. On failure returns null + error.
  virtual const float* ForwardRows(const int64_t* tokens, int64_t count,
                                   int64_t start, std::string* error) = 0;

  // The last token's logits.
  const float* Forward(const int64_t* tokens, int64_t count, int64_t start,
                       std::string* error) {
    const float* rows = ForwardRows(tokens, count, start, error);
    if (rows == nullptr) return nullptr;
    const int64_t returned =
        count < limits().logit_rows ? count : limits().logit_rows;
    return rows + (returned - 1) * limits().vocab_size;
  }
};

}  // namespace llm
