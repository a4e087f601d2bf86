// How much to draft, and when to stop. A verify call costs more than a
// one-token step, and more the more rows it verifies, so drafts that keep
// being rejected make decoding slower than plain decoding.
//
// The draft's length follows how much of the last one the model kept: one
// more than it kept after a rejection, two more after a full acceptance. A
// source that keeps missing then costs a two-row call, not a full draft.
//
// The governor also compares the time per token of recent verify calls with
// that of plain steps, both measured in this generation, and pauses drafting
// while verifying loses; two drafts in a row that the model rejected outright
// lose without a measurement. Each pause is twice as long as the last, and
// after a pause one probe decides whether the next one follows, so free text
// settles at an occasional probe.
#pragma once

#include <cstdint>
#include <string>

namespace llm {

struct GovernorOptions {
  // The first draft's length: no evidence yet for or against the source.
  int64_t first_draft = 4;
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

  // How many tokens this step may draft, at most `room`; 0 means a plain
  // step. A step it refuses counts toward the current pause. Until one plain
  // step is timed there is nothing to compare against, so the first step is
  // always plain.
  int64_t DraftLength(int64_t room);
  // A step that fed one token, and how long it took.
  void RecordPlain(double ms);
  // A verify call: how long it took, how many tokens it drafted and how many
  // of them the model accepted.
  void RecordVerify(double ms, int64_t drafted, int64_t accepted);

  int64_t pauses() const { return pauses_; }

 private:
  // Ends the window; pauses if verifying lost to plain steps.
  void Judge(bool losing);

  GovernorOptions options_;
  int64_t length_;
  double plain_ms_ = 0;  // running mean of plain steps
  int64_t plain_steps_ = 0;
  double window_ms_ = 0;
  int64_t window_tokens_ = 0;
  int64_t window_calls_ = 0;
  int64_t rejected_in_row_ = 0;
  // After a pause, the next verify call is judged alone.
  bool probing_ = false;
  int64_t pause_left_ = 0;
  int64_t next_pause_;
  int64_t pauses_ = 0;
};

// Empty when the options are usable, else what is wrong and how to fix it.
std::string ValidateGovernorOptions(const GovernorOptions& options);

}  // namespace llm
