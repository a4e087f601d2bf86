#include "runtime/speculative/governor.h"

#include <algorithm>

namespace llm {

SpeculationGovernor::SpeculationGovernor(const GovernorOptions& options)
    : options_(options), next_pause_(options.first_pause) {}

bool SpeculationGovernor::MayPropose() {
  if (plain_steps_ == 0) return false;
  if (pause_left_ > 0) {
    --pause_left_;
    return false;
  }
  return true;
}

void SpeculationGovernor::RecordPlain(double ms) {
  // The mean of the last several steps: steady, yet it follows the cost of
  // attention growing with the position.
  constexpr double kWeight = 0.125;
  plain_ms_ = plain_steps_ == 0 ? ms : plain_ms_ + kWeight * (ms - plain_ms_);
  ++plain_steps_;
}

void SpeculationGovernor::RecordVerify(double ms, int64_t tokens) {
  window_ms_ += ms;
  window_tokens_ += tokens;
  if (++window_calls_ < options_.window) return;
  const bool losing =
      window_ms_ > plain_ms_ * static_cast<double>(window_tokens_);
  window_ms_ = 0;
  window_tokens_ = 0;
  window_calls_ = 0;
  if (!losing) {
    next_pause_ = options_.first_pause;
    return;
  }
  pause_left_ = next_pause_;
  next_pause_ = std::min(options_.longest_pause, next_pause_ * 2);
  ++pauses_;
}

}  // namespace llm
