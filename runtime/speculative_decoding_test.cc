// Speculative decoding through LlmRunner and LlmSession, on a fake model with
// a real cache's semantics: under greedy sampling the tokens, stop reasons
// and counts are those of plain decoding, at every edge where a draft ends
// early (no match, a full match, the context's end, EOS or a stop inside a
// draft, max_new_tokens), and with fewer forward calls when drafts match.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "runtime/fake_logits_model.h"
#include "runtime/llm_runner.h"
#include "runtime/session/llm_session.h"

namespace llm {
namespace {

ProgramLimits Limits(int64_t logit_rows = 8) {
  ProgramLimits limits;
  limits.max_seq_len = 16;
  limits.max_context_len = 96;
  limits.vocab_size = 64;
  limits.eos_ids = {63};
  limits.logit_rows = logit_rows;
  return limits;
}

struct Outcome {
  std::vector<int64_t> tokens;
  GenerationStats stats;
  int64_t model_calls = 0;
};

Outcome Generate(const std::vector<int64_t>& prompt, GenerationConfig config,
                 bool speculate, const ProgramLimits& limits = Limits(),
                 int64_t surprise_every = 5, int64_t stop_after = -1) {
  auto model = std::make_unique<FakeLogitsModel>(limits, surprise_every);
  FakeLogitsModel* fake = model.get();
  auto runner = LlmRunner::ForModel(std::move(model));
  config.speculation.mode =
      speculate ? Speculation::kPromptLookup : Speculation::kOff;
  Outcome run;
  std::string error;
  const bool ok = runner->Generate(
      prompt, config,
      [&](int64_t token) {
        run.tokens.push_back(token);
        return stop_after < 0 ||
               static_cast<int64_t>(run.tokens.size()) < stop_after;
      },
      &run.stats, &error);
  EXPECT_TRUE(ok) << error;
  run.model_calls = fake->calls();
  return run;
}

// Plain and speculative runs agree on everything the user sees.
void ExpectSameReply(const Outcome& plain, const Outcome& fast) {
  EXPECT_EQ(fast.tokens, plain.tokens);
  EXPECT_EQ(fast.stats.generated_tokens, plain.stats.generated_tokens);
  EXPECT_EQ(fast.stats.stop_reason, plain.stats.stop_reason);
  EXPECT_EQ(fast.stats.token_ms.size(), plain.stats.token_ms.size());
  EXPECT_EQ(plain.stats.draft_calls, 0);
  EXPECT_EQ(plain.stats.forward_calls,
            static_cast<int64_t>(plain.stats.token_ms.size()));
}

std::vector<int64_t> Range(int64_t from, int64_t to) {
  std::vector<int64_t> ids;
  for (int64_t i = from; i < to; ++i) ids.push_back(i);
  return ids;
}

// A passage, then its first words again: a reply that quotes it.
std::vector<int64_t> Quoting() {
  std::vector<int64_t> prompt = Range(10, 40);
  for (int64_t i = 10; i < 14; ++i) prompt.push_back(i);
  return prompt;
}

GenerationConfig Greedy(int64_t max_new_tokens) {
  GenerationConfig config;
  config.max_new_tokens = max_new_tokens;
  config.stop_at_eos = false;
  // Counts below assume every chance to draft is taken; the governor's
  // timing decisions are tested on their own (speculative/governor_test.cc).
  config.speculation.adaptive = false;
  return config;
}

TEST(SpeculativeDecoding, GreedyTokensAreThoseOfPlainDecoding) {
  for (int64_t surprise : {0, 3, 5, 11}) {
    for (bool adaptive : {false, true}) {
      GenerationConfig config = Greedy(50);
      config.speculation.adaptive = adaptive;
      const Outcome plain =
          Generate(Quoting(), config, false, Limits(), surprise);
      const Outcome fast =
          Generate(Quoting(), config, true, Limits(), surprise);
      SCOPED_TRACE("surprise every " + std::to_string(surprise) +
                   (adaptive ? ", adaptive" : ""));
      ExpectSameReply(plain, fast);
      EXPECT_EQ(fast.stats.speculation, "prompt_lookup");
      EXPECT_GT(fast.stats.draft_calls, 0);
      EXPECT_LT(fast.stats.forward_calls, plain.stats.forward_calls);
      // 34 prompt tokens in chunks of 16, then the decode steps.
      EXPECT_EQ(fast.stats.prefill_calls, 3);
      EXPECT_EQ(fast.stats.forward_calls + 3, fast.model_calls);
    }
  }
}

TEST(SpeculativeDecoding, NoMatchMeansPlainSteps) {
  // Distinct tokens, continued by +1: no n-gram ever repeats.
  const Outcome plain = Generate(Range(10, 30), Greedy(20), false, Limits(), 0);
  const Outcome fast = Generate(Range(10, 30), Greedy(20), true, Limits(), 0);
  ExpectSameReply(plain, fast);
  EXPECT_EQ(fast.stats.draft_calls, 0);
  EXPECT_EQ(fast.stats.forward_calls, plain.stats.forward_calls);
}

TEST(SpeculativeDecoding, AFullMatchVerifiesSevenTokensPerCall) {
  const Outcome plain = Generate(Quoting(), Greedy(50), false, Limits(), 0);
  const Outcome fast = Generate(Quoting(), Greedy(50), true, Limits(), 0);
  ExpectSameReply(plain, fast);
  EXPECT_EQ(fast.stats.accepted_tokens, fast.stats.drafted_tokens);
  EXPECT_DOUBLE_EQ(fast.stats.AcceptanceRate(), 1.0);
  // 49 decoded tokens, 8 per call once drafting starts (after one plain
  // step for the governor's reference).
  EXPECT_LE(fast.stats.forward_calls, 8);
  EXPECT_NEAR(fast.stats.MeanAcceptedLength(), 7.0, 1.0);
}

TEST(SpeculativeDecoding, DraftsStopAtTheContextsEnd) {
  // 80 prompt tokens in a context of 96: the reply fills the rest.
  std::vector<int64_t> prompt;
  for (int i = 0; i < 4; ++i) {
    for (int64_t t = 10; t < 30; ++t) prompt.push_back(t);
  }
  const Outcome plain = Generate(prompt, Greedy(100), false, Limits(), 0);
  const Outcome fast = Generate(prompt, Greedy(100), true, Limits(), 0);
  ExpectSameReply(plain, fast);
  EXPECT_EQ(fast.stats.stop_reason, "context_full");
  EXPECT_GT(fast.stats.draft_calls, 0);
}

TEST(SpeculativeDecoding, EosInsideADraftEndsTheReplyThere) {
  ProgramLimits limits = Limits();
  limits.eos_ids = {20};  // the 11th token of the quoted passage
  GenerationConfig config = Greedy(50);
  config.stop_at_eos = true;
  const Outcome plain = Generate(Quoting(), config, false, limits, 0);
  const Outcome fast = Generate(Quoting(), config, true, limits, 0);
  ExpectSameReply(plain, fast);
  EXPECT_EQ(fast.stats.stop_reason, "eos");
  EXPECT_EQ(fast.tokens, Range(14, 20));
}

TEST(SpeculativeDecoding, MaxNewTokensAndCallbacksStopInsideADraft) {
  for (int64_t max_new : {1, 2, 9, 10}) {
    const Outcome plain =
        Generate(Quoting(), Greedy(max_new), false, Limits(), 0);
    const Outcome fast =
        Generate(Quoting(), Greedy(max_new), true, Limits(), 0);
    ExpectSameReply(plain, fast);
    EXPECT_EQ(static_cast<int64_t>(fast.tokens.size()), max_new);
  }
  const Outcome plain =
      Generate(Quoting(), Greedy(50), false, Limits(), 0, /*stop_after=*/7);
  const Outcome fast =
      Generate(Quoting(), Greedy(50), true, Limits(), 0, /*stop_after=*/7);
  ExpectSameReply(plain, fast);
  EXPECT_EQ(fast.stats.stop_reason, "callback");
  EXPECT_EQ(fast.tokens.size(), 7u);
}

TEST(SpeculativeDecoding, StaysOffWhereItCannotBeExact) {
  const Outcome one_row = Generate(Quoting(), Greedy(20), true, Limits(1));
  EXPECT_EQ(one_row.stats.speculation.rfind("off (the program returns one", 0),
            0u)
      << one_row.stats.speculation;
  EXPECT_EQ(one_row.stats.draft_calls, 0);

  GenerationConfig sampling = Greedy(20);
  sampling.sampler.temperature = 0.8f;
  const Outcome sampled = Generate(Quoting(), sampling, true);
  EXPECT_EQ(sampled.stats.speculation, "off (sampling with a temperature)");
  EXPECT_EQ(sampled.stats.draft_calls, 0);

  GenerationConfig forced = Greedy(5);
  forced.forced_tokens = {1, 2, 3};
  const Outcome teacher = Generate(Quoting(), forced, true);
  EXPECT_EQ(teacher.stats.speculation, "off (teacher forcing)");
}

TEST(SpeculativeDecoding, RejectsABadDraftLength) {
  auto runner =
      LlmRunner::ForModel(std::make_unique<FakeLogitsModel>(Limits(), 0));
  GenerationConfig config = Greedy(5);
  config.speculation.mode = Speculation::kPromptLookup;
  config.speculation.max_draft = 0;
  EXPECT_NE(runner->CheckConfig(config), "");
  config.speculation.max_draft = 4;
  config.speculation.lookup.min_ngram = 0;
  EXPECT_NE(runner->CheckConfig(config), "");
}

TEST(SpeculativeDecoding, ParsesItsFlagValues) {
  Speculation mode = Speculation::kOff;
  std::string error;
  EXPECT_TRUE(ParseSpeculation("prompt_lookup", &mode, &error));
  EXPECT_EQ(mode, Speculation::kPromptLookup);
  EXPECT_TRUE(ParseSpeculation("off", &mode, &error));
  EXPECT_EQ(mode, Speculation::kOff);
  EXPECT_TRUE(ParseSpeculation("draft", &mode, &error));
  EXPECT_EQ(mode, Speculation::kDraft);
  EXPECT_FALSE(ParseSpeculation("draft_model", &mode, &error));
  EXPECT_EQ(error,
            "--speculative=draft_model is not a mode: use off, prompt_lookup "
            "or draft");
}

// Drafts from a draft model: the target's fake with other surprises, so it
// agrees often but not always (draft_surprise 0: never wrong where the
// target's own rule holds).
Outcome GenerateWithDraft(const std::vector<int64_t>& prompt,
                          GenerationConfig config, int64_t target_surprise,
                          int64_t draft_surprise,
                          const ProgramLimits& draft_limits = Limits(1)) {
  auto model = std::make_unique<FakeLogitsModel>(Limits(), target_surprise);
  FakeLogitsModel* fake = model.get();
  auto runner = LlmRunner::ForModel(
      std::move(model),
      std::make_unique<FakeLogitsModel>(draft_limits, draft_surprise));
  config.speculation.mode = Speculation::kDraft;
  Outcome run;
  std::string error;
  EXPECT_TRUE(runner->Generate(
      prompt, config, [&](int64_t t) { return run.tokens.push_back(t), true; },
      &run.stats, &error))
      << error;
  run.model_calls = fake->calls();
  return run;
}

TEST(SpeculativeDecoding, ADraftModelsTokensAreCheckedLikeAnyDraft) {
  // Free text for prompt lookup (no n-gram repeats), not for a draft model.
  for (int64_t draft_surprise : {0, 3, 4, 7}) {
    SCOPED_TRACE("draft surprise every " + std::to_string(draft_surprise));
    const Outcome plain =
        Generate(Range(10, 30), Greedy(40), false, Limits(), 5);
    const Outcome fast =
        GenerateWithDraft(Range(10, 30), Greedy(40), 5, draft_surprise);
    ExpectSameReply(plain, fast);
    EXPECT_EQ(fast.stats.speculation, "draft");
    EXPECT_GT(fast.stats.accepted_tokens, 0);
    EXPECT_LT(fast.stats.forward_calls, plain.stats.forward_calls);
    // One draft step per draft token but the last of each call, plus one
    // call per verdict fed back.
    EXPECT_GE(fast.stats.draft_model_calls, fast.stats.draft_calls);
  }
}

TEST(SpeculativeDecoding, ADraftModelThatAgreesFillsEveryDraft) {
  const Outcome plain = Generate(Range(10, 30), Greedy(40), false, Limits(), 5);
  const Outcome fast = GenerateWithDraft(Range(10, 30), Greedy(40), 5, 5);
  ExpectSameReply(plain, fast);
  EXPECT_DOUBLE_EQ(fast.stats.AcceptanceRate(), 1.0);
  EXPECT_LE(fast.stats.forward_calls, 1 + (39 + 7) / 8);
}

TEST(SpeculativeDecoding, ADraftModelStopsAtItsOwnContext) {
  // The draft's context ends at 40; the reply runs to 70.
  ProgramLimits short_draft = Limits(1);
  short_draft.max_context_len = 40;
  const Outcome plain = Generate(Range(10, 30), Greedy(50), false, Limits(), 5);
  const Outcome fast =
      GenerateWithDraft(Range(10, 30), Greedy(50), 5, 5, short_draft);
  ExpectSameReply(plain, fast);
  EXPECT_GT(fast.stats.draft_calls, 0);
  EXPECT_LT(fast.stats.drafted_tokens, 49);
}

TEST(SpeculativeDecoding, DraftModeWithoutADraftProgramSaysSo) {
  GenerationConfig config = Greedy(10);
  config.speculation.mode = Speculation::kDraft;
  auto runner =
      LlmRunner::ForModel(std::make_unique<FakeLogitsModel>(Limits(), 5));
  GenerationStats stats;
  std::string error;
  ASSERT_TRUE(runner->Generate(Quoting(), config, nullptr, &stats, &error))
      << error;
  EXPECT_EQ(stats.speculation.rfind("off (no draft program", 0), 0u)
      << stats.speculation;
  EXPECT_EQ(stats.draft_calls, 0);
}

// A conversation keeps the history the drafts are looked up in: every turn's
// reply, and what the cache holds, match plain decoding's.
TEST(SpeculativeDecoding, ASessionsHistoryStaysTrueToItsCache) {
  std::vector<std::vector<int64_t>> histories;
  for (Speculation mode :
       {Speculation::kOff, Speculation::kPromptLookup, Speculation::kDraft}) {
    auto session = std::make_unique<LlmSession>(
        LlmRunner::ForModel(std::make_unique<FakeLogitsModel>(Limits(), 5),
                            std::make_unique<FakeLogitsModel>(Limits(1), 3)));
    GenerationConfig config = Greedy(12);
    config.speculation.mode = mode;
    std::string error;
    GenerationStats stats;
    std::vector<int64_t> conversation = Quoting();
    for (int turn = 0; turn < 3; ++turn) {
      ASSERT_TRUE(session->Prefill(conversation, &stats, &error)) << error;
      std::vector<int64_t> reply;
      ASSERT_TRUE(session->Generate(
          config, [&](int64_t t) { return reply.push_back(t), true; }, &stats,
          &error))
          << error;
      conversation = session->tokens();
      conversation.push_back(reply.back());
      for (int64_t t = 10; t < 13; ++t) conversation.push_back(t);
    }
    histories.push_back(session->tokens());
  }
  EXPECT_EQ(histories[1], histories[0]);
  EXPECT_EQ(histories[2], histories[0]);
}

}  // namespace
}  // namespace llm
