// Picks the next token from a row of logits: greedy, or temperature with
// nucleus (top-p) filtering, driven by a seeded generator.
//
// The random stream is our own (SplitMix64 -> 53-bit uniform) rather than
// <random>'s distributions, whose output differs between libstdc++ and libc++:
// the same seed gives the same tokens on the host, linux-arm64 and Android.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace llm {

struct SamplerConfig {
  // 0 means greedy (argmax); otherwise logits are divided by it.
  float temperature = 0.0f;
  // Keep the smallest set of tokens whose probability reaches top_p. 1 = all.
  float top_p = 1.0f;
  uint64_t seed = 0;
};

// Empty when the config is valid, else what is wrong and how to fix it.
std::string ValidateSamplerConfig(const SamplerConfig& config);

class Sampler {
 public:
  // `vocab_size` sizes the scratch buffers once, so Sample never allocates.
  Sampler(const SamplerConfig& config, int32_t vocab_size);

  int32_t Sample(const float* logits);

  static int32_t Argmax(const float* logits, int32_t vocab_size);

 private:
  double NextUniform();

  SamplerConfig config_;
  int32_t vocab_size_;
  uint64_t state_;
  std::vector<std::pair<float, int32_t>> candidates_;
};

}  // namespace llm
