// The draft model's drafter proposes the draft model's own greedy tokens,
// and keeps its KV cache in step with the conversation by feeding only what
// is new. The fake fails a call that leaves a gap in its cache, and predicts
// from the cache rows it holds, so a wrong position or a missed rollback
// shows as an error or as a different draft.
#include "runtime/speculative/draft_model.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/fake_logits_model.h"

namespace llm {
namespace {

ProgramLimits Limits() {
  ProgramLimits limits;
  limits.max_seq_len = 8;
  limits.max_context_len = 40;
  limits.vocab_size = 50;
  return limits;
}

std::vector<int64_t> Propose(DraftModelDrafter* drafter,
                             const std::vector<int64_t>& history,
                             int64_t max_tokens) {
  std::vector<int64_t> draft(static_cast<size_t>(max_tokens) + 1, -1);
  const int64_t n =
      drafter->Propose(history.data(), static_cast<int64_t>(history.size()),
                       max_tokens, draft.data());
  EXPECT_EQ(draft[static_cast<size_t>(max_tokens)], -1) << "wrote past max";
  EXPECT_EQ(drafter->error(), "");
  draft.resize(static_cast<size_t>(n));
  return draft;
}

// What a drafter that starts from an empty cache proposes.
std::vector<int64_t> Fresh(const std::vector<int64_t>& history,
                           int64_t max_tokens) {
  FakeLogitsModel model(Limits(), /*surprise_every=*/3);
  DraftModelDrafter drafter(&model);
  return Propose(&drafter, history, max_tokens);
}

std::vector<int64_t> Concat(std::vector<int64_t> a,
                            const std::vector<int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST(DraftModel, ProposesTheDraftModelsGreedyContinuation) {
  FakeLogitsModel model(Limits(), /*surprise_every=*/3);
  DraftModelDrafter drafter(&model);
  const std::vector<int64_t> history = {4, 9, 4, 9, 4, 20, 21, 22, 23, 24, 4};
  const std::vector<int64_t> draft = Propose(&drafter, history, 4);
  ASSERT_EQ(draft.size(), 4u);
  // The same model fed one token at a time predicts each draft token after
  // the ones before it.
  FakeLogitsModel reference(Limits(), 3);
  std::string error;
  const std::vector<int64_t> all = Concat(history, draft);
  for (size_t i = 0; i + 1 < all.size(); ++i) {
    const float* row =
        reference.Forward(&all[i], 1, static_cast<int64_t>(i), &error);
    ASSERT_NE(row, nullptr) << error;
    if (i + 1 >= history.size()) {
      EXPECT_EQ(reference.Next(static_cast<int64_t>(i)), all[i + 1])
          << "draft token " << i + 1 - history.size();
    }
  }
  // 11 tokens in chunks of 8, then a step per draft token but the last.
  EXPECT_EQ(drafter.calls(), 2 + 3);
  EXPECT_EQ(model.tokens_fed(), 11 + 3);
}

TEST(DraftModel, FeedsOnlyTheTargetsVerdictAfterAPartlyAcceptedDraft) {
  FakeLogitsModel model(Limits(), 3);
  DraftModelDrafter drafter(&model);
  const std::vector<int64_t> history = {4, 9, 4, 9, 4, 20, 21, 22, 23, 24, 4};
  const std::vector<int64_t> draft = Propose(&drafter, history, 4);
  ASSERT_EQ(draft.size(), 4u);
  // The target kept two drafts and chose its own third token.
  const std::vector<int64_t> next =
      Concat(history, {draft[0], draft[1], (draft[2] + 1) % 50});
  const int64_t fed_before = model.tokens_fed();
  EXPECT_EQ(Propose(&drafter, next, 3), Fresh(next, 3));
  // The correction, then two draft steps: the rest was in the cache.
  EXPECT_EQ(model.tokens_fed() - fed_before, 1 + 2);
}

TEST(DraftModel, ANewConversationStartsTheCacheAgain) {
  FakeLogitsModel model(Limits(), 3);
  DraftModelDrafter drafter(&model);
  Propose(&drafter, {1, 2, 3, 1, 2, 3, 1}, 3);
  const std::vector<int64_t> other = {7, 8, 7, 8, 7};
  EXPECT_EQ(Propose(&drafter, other, 3), Fresh(other, 3));
  // The next turn of the same conversation reuses its whole prefix: the
  // cache holds the 5 tokens, then drafts that the new turn replaces.
  const std::vector<int64_t> longer = Concat(other, {30, 31, 7});
  const int64_t fed_before = model.tokens_fed();
  EXPECT_EQ(Propose(&drafter, longer, 1), Fresh(longer, 1));
  EXPECT_EQ(model.tokens_fed() - fed_before, 3);
}

TEST(DraftModel, APrefilledPromptLeavesOneStepForTheFirstDraft) {
  FakeLogitsModel model(Limits(), 3);
  DraftModelDrafter drafter(&model);
  const std::vector<int64_t> prompt = {4, 9, 4, 9, 4, 20, 21, 22, 23, 24};
  ASSERT_TRUE(drafter.Prefill(prompt.data(), 10)) << drafter.error();
  EXPECT_EQ(model.tokens_fed(), 10);
  // The target's first token, then two draft steps.
  const std::vector<int64_t> history = Concat(prompt, {4});
  EXPECT_EQ(Propose(&drafter, history, 3), Fresh(history, 3));
  EXPECT_EQ(model.tokens_fed(), 10 + 1 + 2);
  // A history past the draft's context is left to Propose, which declines.
  const std::vector<int64_t> long_history(41, 5);
  EXPECT_TRUE(drafter.Prefill(long_history.data(), 41));
}

TEST(DraftModel, StopsAtTheDraftModelsContext) {
  FakeLogitsModel model(Limits(), 3);
  DraftModelDrafter drafter(&model);
  std::vector<int64_t> history(38, 5);
  // Positions 38 and 39 are left: three draft tokens, the last never fed.
  EXPECT_EQ(Propose(&drafter, history, 7).size(), 3u);
  history.resize(40, 5);
  EXPECT_EQ(Propose(&drafter, history, 7).size(), 1u);
  history.push_back(5);
  EXPECT_TRUE(Propose(&drafter, history, 7).empty());
  EXPECT_TRUE(Propose(&drafter, {}, 7).empty());
}

// A draft model whose every call fails, as a program can.
class FailingModel : public LogitsModel {
 public:
  const ProgramLimits& limits() const override { return limits_; }
  const float* ForwardRows(const int64_t*, int64_t, int64_t, int64_t,
                           std::string* error) override {
    *error = "the delegate failed";
    return nullptr;
  }
  int64_t executions() const override { return 0; }

 private:
  ProgramLimits limits_ = Limits();
};

TEST(DraftModel, AFailedCallProposesNothingAndSaysWhy) {
  FailingModel model;
  DraftModelDrafter drafter(&model);
  std::vector<int64_t> draft(4);
  const std::vector<int64_t> history = {1, 2, 3};
  EXPECT_EQ(drafter.Propose(history.data(), 3, 4, draft.data()), 0);
  EXPECT_EQ(drafter.error(), "the delegate failed");
  // It stays failed: the runner reports the error rather than drafting on.
  EXPECT_EQ(drafter.Propose(history.data(), 3, 4, draft.data()), 0);
  EXPECT_FALSE(drafter.Prefill(history.data(), 3));
}

}  // namespace
}  // namespace llm
