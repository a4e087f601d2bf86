// Runs the tiny random-weight exports through the C++ runtime: loading,
// limits, generation, allocation-free decode, and the errors users hit.
#include "runtime/llm_runner.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace llm {
namespace {

// Bazel passes the .pte paths through the environment (see BUILD.bazel).
std::string EnvPath(const char* name) {
  const char* value = std::getenv(name);
  EXPECT_NE(value, nullptr) << name << " is not set";
  return value ? value : "";
}

std::unique_ptr<LlmRunner> Load(const std::string& path, std::string* error,
                                bool warmup = false) {
  RunnerOptions options;
  options.program.pte_path = path;
  options.threads = 1;
  options.warmup = warmup;
  return LlmRunner::Create(options, error);
}

std::string WriteTemp(const std::string& name, const std::string& bytes) {
  const std::string path = std::string(std::getenv("TEST_TMPDIR")) + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(LlmRunner, ReadsTheProgramLimits) {
  std::string error;
  auto runner = Load(EnvPath("TINY_FP32_PTE"), &error);
  ASSERT_TRUE(runner) << error;
  EXPECT_EQ(runner->limits().max_context_len, 256);
  EXPECT_EQ(runner->limits().vocab_size, 49152);
  EXPECT_GE(runner->limits().max_seq_len, 16);
  EXPECT_GT(runner->load_ms(), 0.0);
}

TEST(LlmRunner, GreedyGenerationIsDeterministicAndAllocationFree) {
  for (const char* pte : {"TINY_FP32_PTE", "TINY_8DA4W_PTE"}) {
    std::string error;
    auto runner = Load(EnvPath(pte), &error, /*warmup=*/true);
    ASSERT_TRUE(runner) << pte << ": " << error;
    GenerationConfig config;
    config.max_new_tokens = 20;
    config.stop_at_eos = false;
    std::vector<int64_t> prompt;
    for (int i = 0; i < 40; ++i) prompt.push_back(100 + 7 * i);  // > one chunk

    std::vector<std::vector<int64_t>> runs(2);
    for (auto& tokens : runs) {
      GenerationStats stats;
      ASSERT_TRUE(runner->Generate(
          prompt, config,
          [&](int64_t t) {
            tokens.push_back(t);
            return true;
          },
          &stats, &error))
          << error;
      EXPECT_EQ(stats.generated_tokens, 20);
      EXPECT_EQ(stats.stop_reason, "max_new_tokens");
      EXPECT_EQ(stats.token_ms.size(), 19u);
      EXPECT_EQ(stats.decode_allocations, 0) << pte;
      EXPECT_GT(stats.peak_rss_mb, 1.0);
    }
    EXPECT_EQ(runs[0], runs[1]) << pte << ": the KV cache leaked between runs";
  }
}

TEST(LlmRunner, SeededSamplingRepeatsAndDiffersFromGreedy) {
  std::string error;
  auto runner = Load(EnvPath("TINY_FP32_PTE"), &error);
  ASSERT_TRUE(runner) << error;
  auto generate = [&](float temperature, uint64_t seed) {
    GenerationConfig config;
    config.max_new_tokens = 24;
    config.stop_at_eos = false;
    config.sampler.temperature = temperature;
    config.sampler.top_p = 0.9f;
    config.sampler.seed = seed;
    std::vector<int64_t> tokens;
    GenerationStats stats;
    EXPECT_TRUE(runner->Generate(
        {1, 2, 3}, config,
        [&](int64_t t) {
          tokens.push_back(t);
          return true;
        },
        &stats, &error))
        << error;
    return tokens;
  };
  EXPECT_EQ(generate(1.5f, 7), generate(1.5f, 7));
  EXPECT_NE(generate(1.5f, 7), generate(1.5f, 8));
  EXPECT_NE(generate(1.5f, 7), generate(0.0f, 0));
}

TEST(LlmRunner, CallbackCanStopGeneration) {
  std::string error;
  auto runner = Load(EnvPath("TINY_FP32_PTE"), &error);
  ASSERT_TRUE(runner) << error;
  int seen = 0;
  GenerationStats stats;
  GenerationConfig config;
  config.stop_at_eos = false;
  ASSERT_TRUE(runner->Generate(
      {5, 6}, config, [&](int64_t) { return ++seen < 3; }, &stats, &error));
  EXPECT_EQ(seen, 3);
  EXPECT_EQ(stats.stop_reason, "callback");
}

TEST(LlmRunner, PromptLongerThanContextIsAClearError) {
  std::string error;
  auto runner = Load(EnvPath("TINY_FP32_PTE"), &error);
  ASSERT_TRUE(runner) << error;
  std::vector<int64_t> prompt(300, 42);
  GenerationStats stats;
  GenerationConfig config;
  EXPECT_FALSE(runner->Generate(prompt, config, nullptr, &stats, &error));
  EXPECT_NE(error.find("300 tokens"), std::string::npos) << error;
  EXPECT_NE(error.find("--truncate_prompt"), std::string::npos) << error;

  config.truncate_prompt = true;
  config.max_new_tokens = 10;
  config.stop_at_eos = false;
  ASSERT_TRUE(runner->Generate(prompt, config, nullptr, &stats, &error))
      << error;
  EXPECT_EQ(stats.prompt_tokens, 246);
  EXPECT_EQ(stats.truncated_prompt_tokens, 54);
  EXPECT_EQ(stats.generated_tokens, 10);
}

TEST(LlmRunner, GenerationStopsWhenTheContextIsFull) {
  std::string error;
  auto runner = Load(EnvPath("TINY_FP32_PTE"), &error);
  ASSERT_TRUE(runner) << error;
  GenerationConfig config;
  config.max_new_tokens = 1000;
  config.stop_at_eos = false;
  GenerationStats stats;
  ASSERT_TRUE(runner->Generate(std::vector<int64_t>(250, 9), config, nullptr,
                               &stats, &error))
      << error;
  EXPECT_EQ(stats.stop_reason, "context_full");
  EXPECT_EQ(stats.prompt_tokens + stats.generated_tokens, 257);
}

TEST(LlmRunner, BadTokensAndSettingsAreRejected) {
  std::string error;
  auto runner = Load(EnvPath("TINY_FP32_PTE"), &error);
  ASSERT_TRUE(runner) << error;
  GenerationStats stats;
  GenerationConfig config;
  EXPECT_FALSE(runner->Generate({49152}, config, nullptr, &stats, &error));
  EXPECT_NE(error.find("outside the vocabulary"), std::string::npos) << error;
  EXPECT_FALSE(runner->Generate({}, config, nullptr, &stats, &error));
  EXPECT_NE(error.find("empty"), std::string::npos) << error;
  config.sampler.top_p = 0.0f;
  EXPECT_FALSE(runner->Generate({1}, config, nullptr, &stats, &error));
  EXPECT_NE(error.find("--top_p"), std::string::npos) << error;
}

TEST(LlmRunner, MissingTruncatedAndCorruptFilesAreClearErrors) {
  std::string error;
  EXPECT_FALSE(Load("/nonexistent/model.pte", &error));
  EXPECT_NE(error.find("cannot open /nonexistent/model.pte"), std::string::npos)
      << error;

  const std::string original = ReadFile(EnvPath("TINY_FP32_PTE"));
  ASSERT_GT(original.size(), 4096u);
  const std::string truncated =
      WriteTemp("truncated.pte", original.substr(0, original.size() / 3));
  EXPECT_FALSE(Load(truncated, &error));
  EXPECT_NE(error.find("rebuild"), std::string::npos) << error;

  std::string corrupt = original;
  for (size_t i = 8; i < 4096; i += 7)
    corrupt[i] = static_cast<char>(corrupt[i] ^ 0x5a);
  EXPECT_FALSE(Load(WriteTemp("corrupt.pte", corrupt), &error));
  EXPECT_NE(error.find(".pte"), std::string::npos) << error;

  EXPECT_FALSE(Load(WriteTemp("text.pte", "this is not a program"), &error));
  EXPECT_NE(error.find("not a valid ExecuTorch program"), std::string::npos)
      << error;
}

}  // namespace
}  // namespace llm
