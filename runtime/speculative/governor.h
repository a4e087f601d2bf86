// When to stop proposing drafts. A verify call costs more than a one-token
// step, so drafts that keep being rejected make decoding slower than plain
// decoding. The governor compares the time per token of recent verify calls
// with that of plain steps, both measured in this generation, and pauses
// drafting while verifying loses; each pause is twice as long as the last,
// so free text settles at an occasional probe.
#pragma once

#include <cstdint>

namespace llm {

struct GovernorOptions {
  // Verify calls judged together: one lucky or unlucky draft decides nothing.
  int64_t window = 4;
  // Steps without drafts after the first losing window, doubling up to the
  // longest pause.
  int64_t first_pause = 8;
  int64_t longest_pause = 256;
};

class SpeculationGovernor {
 public:
  explicit SpeculationGovernor(const GovernorOptions& options = {});

  // Whether this step may verify a draft. A step it refuses counts toward the
  // current pause. Until one plain step is timed there is nothing to compare
  // against, so the first step is always plain.
  bool MayPropose();
  // A step that fed one token, and how long it took.
  void RecordPlain(double ms);
  // A verify call, how long it took and how many tokens it produced (the
  // accepted drafts plus the token sampled after them).
  void RecordVerify(double ms, int64_t tokens);

  int64_t pauses() const { return pauses_; }

 private:
  GovernorOptions options_;
  double plain_ms_ = 0;  // running mean of plain steps
  int64_t plain_steps_ = 0;
  double window_ms_ = 0;
  int64_t window_tokens_ = 0;
  int64_t window_calls_ = 0;
  int64_t pause_left_ = 0;
  int64_t next_pause_;
  int64_t pauses_ = 0;
};

}  // namespace llm
