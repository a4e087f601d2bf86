#include "runtime/speculative/governor.h"

#include <algorithm>

namespace llm {

std::string ValidateGovernorOptions(const GovernorOptions& options) {
  if (options.first_draft < 1)
    return "the first draft must be at least 1 token";
  if (options.window < 1)
    return "the governor's window must be at least 1 call";
  if (options.first_pause < 1 || options.longest_pause < options.first_pause) {
    return "the governor's pauses must be at least 1 step, the longest at "
           "least the first";
  }
  return "";
}

SpeculationGovernor::SpeculationGovernor(const GovernorOptions& options)
    : options_(options),
      length_(options.first_draft),
      next_pause_(options.first_pause) {}

int64_t SpeculationGovernor::DraftLength(int64_t room) {
  if (plain_steps_ == 0 || room < 1) return 0;
  if (pause_left_ > 0) {
    --pause_left_;
    return 0;
  }
  return std::min(room, length_);
}

void SpeculationGovernor::RecordPlain(double ms) {
  // The mean of the last several steps: steady, yet it follows the cost of
  // attention growing with the position.
  constexpr double kWeight = 0.125;
  plain_ms_ = plain_steps_ == 0 ? ms : plain_ms_ + kWeight * (ms - plain_ms_);
  ++plain_steps_;
}

void SpeculationGovernor::RecordVerify(double ms, int64_t drafted,
                                       int64_t accepted) {
  // A draft cut short by the room left or by the source's own text says
  // nothing against a longer one.
  length_ = accepted == drafted ? std::max(length_, drafted + 2) : accepted + 1;
  window_ms_ += ms;
  window_tokens_ += accepted + 1;
  ++window_calls_;
  // A call that kept nothing gave one token at more than a step's cost: two
  // in a row need no timing to be judged.
  rejected_in_row_ = accepted == 0 ? rejected_in_row_ + 1 : 0;
  if (rejected_in_row_ >= 2) {
    Judge(/*losing=*/true);
  } else if (probing_ || window_calls_ >= options_.window) {
    Judge(window_ms_ > plain_ms_ * static_cast<double>(window_tokens_));
  }
}

void SpeculationGovernor::Judge(bool losing) {
  rejected_in_row_ = 0;
  window_ms_ = 0;
  window_tokens_ = 0;
  window_calls_ = 0;
  probing_ = losing;
  if (!losing) {
    next_pause_ = options_.first_pause;
    return;
  }
  pause_left_ = next_pause_;
  next_pause_ = std::min(options_.longest_pause, next_pause_ * 2);
  ++pauses_;
}

}  // namespace llm
