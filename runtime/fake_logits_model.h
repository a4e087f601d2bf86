// A LogitsModel for tests, with a real KV cache's semantics and no weights.
//
// Its next token after position p depends on the tokens at [0, p] only: the
// token that followed the latest earlier occurrence of the token at p (what
// an induction head does), or the token plus one when there is none. Every
// `surprise_every`-th position breaks that rule, so drafts are sometimes
// wrong. It fails a call that would read a cache row nothing wrote, or
// that leaves a gap, as a real program would return garbage.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/logits_model.h"

namespace llm {

class FakeLogitsModel : public LogitsModel {
 public:
  FakeLogitsModel(const ProgramLimits& limits, int64_t surprise_every)
      : limits_(limits),
        surprise_every_(surprise_every),
        cache_(static_cast<size_t>(limits.max_context_len), -1),
        rows_(static_cast<size_t>(limits.logit_rows * limits.vocab_size)) {}

  const ProgramLimits& limits() const override { return limits_; }

  const float* ForwardRows(const int64_t* tokens, int64_t count, int64_t start,
                           int64_t rows, std::string* error) override {
    if (count < 1 || count > limits_.max_seq_len || start < 0 ||
        start + count > limits_.max_context_len) {
      *error = "fake: " + std::to_string(count) + " tokens at " +
               std::to_string(start) + " do not fit";
      return nullptr;
    }
    if (rows < 1 || rows > std::min(count, limits_.logit_rows)) {
      *error = "fake: " + std::to_string(rows) + " rows of a " +
               std::to_string(count) + "-token call";
      return nullptr;
    }
    if (start > written_) {
      *error = "fake: position " + std::to_string(start) +
               " leaves a gap after " + std::to_string(written_);
      return nullptr;
    }
    ++calls_;
    tokens_fed_ += count;
    for (int64_t i = 0; i < count; ++i) cache_[start + i] = tokens[i];
    // Rows past the end are stale now: attention will not read them.
    written_ = start + count;
    for (int64_t r = 0; r < rows; ++r) {
      float* row = rows_.data() + r * limits_.vocab_size;
      std::fill(row, row + limits_.vocab_size, 0.0f);
      row[Next(start + count - rows + r)] = 1.0f;
    }
    return rows_.data();
  }

  // The token the model predicts after position p, from cache rows [0, p].
  int64_t Next(int64_t p) const {
    const int64_t vocab = limits_.vocab_size;
    if (surprise_every_ > 0 && p % surprise_every_ == surprise_every_ - 1) {
      return (cache_[p] * 7 + 3) % vocab;
    }
    for (int64_t q = p - 1; q >= 0; --q) {
      if (cache_[q] == cache_[p]) return cache_[q + 1];
    }
    return (cache_[p] + 1) % vocab;
  }

  int64_t executions() const override { return calls_; }
  int64_t calls() const { return calls_; }
  int64_t tokens_fed() const { return tokens_fed_; }

 private:
  ProgramLimits limits_;
  int64_t surprise_every_;
  std::vector<int64_t> cache_;
  std::vector<float> rows_;
  int64_t written_ = 0;
  int64_t calls_ = 0;
  int64_t tokens_fed_ = 0;
};

}  // namespace llm
