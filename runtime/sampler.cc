#include "runtime/sampler.h"

#include <algorithm>
#include <cmath>

namespace llm {

std::string ValidateSamplerConfig(const SamplerConfig& config) {
  if (!(config.temperature >= 0.0f) || std::isinf(config.temperature)) {
    return "--temperature must be a finite number >= 0 (0 = greedy)";
  }
  if (!(config.top_p > 0.0f && config.top_p <= 1.0f)) {
    return "--top_p must be in (0, 1]";
  }
  return "";
}

Sampler::Sampler(const SamplerConfig& config, int32_t vocab_size)
    : config_(config), vocab_size_(vocab_size), state_(config.seed) {
  if (config_.temperature > 0.0f) {
    candidates_.resize(static_cast<size_t>(vocab_size));
  }
}

int32_t Sampler::Argmax(const float* logits, int32_t vocab_size) {
  // First maximum wins, as torch.argmax does.
  int32_t best = 0;
  for (int32_t i = 1; i < vocab_size; ++i) {
    if (logits[i] > logits[best]) best = i;
  }
  return best;
}

double Sampler::NextUniform() {
  // SplitMix64: tiny, well mixed, and identical on every platform.
  state_ += 0x9E3779B97F4A7C15ull;
  uint64_t z = state_;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return static_cast<double>(z >> 11) * (1.0 / 9007199254740992.0);
}

int32_t Sampler::Sample(const float* logits) {
  if (config_.temperature <= 0.0f) return Argmax(logits, vocab_size_);

  const float max_logit = logits[Argmax(logits, vocab_size_)];
  double total = 0.0;
  for (int32_t i = 0; i < vocab_size_; ++i) {
    const float p = std::exp((logits[i] - max_logit) / config_.temperature);
    candidates_[static_cast<size_t>(i)] = {p, i};
    total += p;
  }
  size_t keep = candidates_.size();
  double kept_mass = total;
  if (config_.top_p < 1.0f) {
    // Sorting all 49k entries costs ~1 ms; the nucleus is usually a handful
    // of tokens, so only order the part we need, doubling until it suffices.
    size_t sorted = std::min<size_t>(64, candidates_.size());
    const auto by_probability = [](const std::pair<float, int32_t>& a,
                                   const std::pair<float, int32_t>& b) {
      return a.first > b.first || (a.first == b.first && a.second < b.second);
    };
    for (;;) {
      std::partial_sort(candidates_.begin(), candidates_.begin() + sorted,
                        candidates_.end(), by_probability);
      double mass = 0.0;
      size_t n = 0;
      while (n < sorted && mass < config_.top_p * total) {
        mass += candidates_[n++].first;
      }
      if (mass >= config_.top_p * total || sorted == candidates_.size()) {
        keep = n;
        kept_mass = mass;
        break;
      }
      // A flat distribution needs most of the vocabulary: sort it all.
      sorted =
          sorted * 8 > candidates_.size() ? candidates_.size() : sorted * 2;
    }
  }
  const double target = NextUniform() * kept_mass;
  double cumulative = 0.0;
  for (size_t i = 0; i < keep; ++i) {
    cumulative += candidates_[i].first;
    if (cumulative > target) return candidates_[i].second;
  }
  return candidates_[keep - 1].second;
}

}  // namespace llm
