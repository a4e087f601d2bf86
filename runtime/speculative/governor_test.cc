#include "runtime/speculative/governor.h"

#include <gtest/gtest.h>

namespace llm {
namespace {

constexpr int64_t kRoom = 7;

GovernorOptions Options() {
  GovernorOptions options;
  options.first_draft = 2;
  options.window = 2;
  options.first_pause = 3;
  options.longest_pause = 6;
  return options;
}

// How many of the next `steps` steps the governor keeps plain.
int Refusals(SpeculationGovernor* governor, int steps) {
  int refused = 0;
  for (int i = 0; i < steps; ++i) {
    refused += governor->DraftLength(kRoom) == 0 ? 1 : 0;
  }
  return refused;
}

// A verify call of a fully rejected draft: 14 ms for the one token it gave.
void Reject(SpeculationGovernor* governor) {
  governor->RecordVerify(14, governor->DraftLength(kRoom), 0);
}

TEST(Governor, NeedsAPlainStepToCompareWith) {
  SpeculationGovernor governor(Options());
  EXPECT_EQ(governor.DraftLength(kRoom), 0);
  governor.RecordPlain(10);
  EXPECT_EQ(governor.DraftLength(kRoom), 2) << "the first draft's length";
  EXPECT_EQ(governor.DraftLength(1), 1) << "never more than the room";
  EXPECT_EQ(governor.DraftLength(0), 0);
}

TEST(Governor, TheDraftFollowsWhatTheModelKept) {
  SpeculationGovernor governor(Options());
  governor.RecordPlain(10);
  // Kept whole: two more each time; the room caps each draft, not the
  // length earned.
  for (int64_t expected : {2, 4, 6, 7, 7}) {
    const int64_t length = governor.DraftLength(kRoom);
    ASSERT_EQ(length, expected);
    governor.RecordVerify(5, length, length);
  }
  // Kept in part: one more than was kept.
  governor.RecordVerify(5, 7, 2);
  EXPECT_EQ(governor.DraftLength(kRoom), 3);
  governor.RecordVerify(5, 3, 0);
  EXPECT_EQ(governor.DraftLength(kRoom), 1);
  // A draft the source cut short and the model kept whole does not shorten
  // the next.
  governor.RecordVerify(5, 1, 1);
  governor.RecordVerify(5, 3, 3);
  governor.RecordVerify(5, 1, 1);
  EXPECT_EQ(governor.DraftLength(kRoom), 5);
}

TEST(Governor, KeepsDraftingWhileVerifyingWins) {
  SpeculationGovernor governor(Options());
  governor.RecordPlain(10);
  for (int i = 0; i < 10; ++i) governor.RecordVerify(15, 2, 2);  // 5 ms a token
  EXPECT_EQ(Refusals(&governor, 20), 0);
  EXPECT_EQ(governor.pauses(), 0);
}

TEST(Governor, PausesWhileVerifyingLosesThenProbesOneCallAtATime) {
  SpeculationGovernor governor(Options());
  governor.RecordPlain(10);
  Reject(&governor);
  EXPECT_EQ(governor.pauses(), 0) << "one call is not a window";
  Reject(&governor);
  EXPECT_EQ(governor.pauses(), 1);
  EXPECT_EQ(Refusals(&governor, 3), 3);
  EXPECT_EQ(governor.DraftLength(kRoom), 1) << "the pause is over: probe again";
  // The probe loses on its own: the next pause is twice as long.
  Reject(&governor);
  EXPECT_EQ(governor.pauses(), 2);
  EXPECT_EQ(Refusals(&governor, 7), 6) << "the second pause is 6 steps";
  Reject(&governor);
  EXPECT_EQ(Refusals(&governor, 7), 6) << "pauses stop growing at 6";
}

TEST(Governor, AWinningProbeEndsThePausesAndTheWindowJudgesAgain) {
  SpeculationGovernor governor(Options());
  governor.RecordPlain(10);
  Reject(&governor);
  Reject(&governor);
  EXPECT_EQ(Refusals(&governor, 3), 3);
  governor.RecordVerify(14, 4, 3);  // 3.5 ms a token
  EXPECT_EQ(governor.pauses(), 1);
  Reject(&governor);
  EXPECT_EQ(governor.pauses(), 1) << "a window of two calls again";
  Reject(&governor);
  EXPECT_EQ(governor.pauses(), 2);
  EXPECT_EQ(Refusals(&governor, 4), 3) << "back to the first pause";
}

TEST(Governor, TwoOutrightRejectionsInARowLoseWithoutTiming) {
  GovernorOptions options = Options();
  options.window = 4;
  SpeculationGovernor governor(options);
  governor.RecordPlain(10);
  // Cheap calls, but each kept nothing: a plain step would have given the
  // same token.
  governor.RecordVerify(1, 2, 0);
  governor.RecordVerify(1, 1, 1);
  governor.RecordVerify(1, 2, 0);
  EXPECT_EQ(governor.pauses(), 0) << "not in a row";
  governor.RecordVerify(1, 1, 0);
  EXPECT_EQ(governor.pauses(), 1);
  EXPECT_EQ(Refusals(&governor, 3), 3);
}

TEST(Governor, FollowsThePlainStepsCost) {
  SpeculationGovernor governor(Options());
  governor.RecordPlain(10);
  // Plain steps grow dearer (a longer context): 12 ms per token of
  // verifying, which lost at 10 ms, now wins.
  for (int i = 0; i < 40; ++i) governor.RecordPlain(20);
  governor.RecordVerify(24, 2, 1);
  governor.RecordVerify(24, 2, 1);
  EXPECT_EQ(governor.pauses(), 0);
}

TEST(Governor, ExplainsUnusableOptions) {
  EXPECT_EQ(ValidateGovernorOptions(GovernorOptions()), "");
  GovernorOptions options;
  options.first_draft = 0;
  EXPECT_NE(ValidateGovernorOptions(options), "");
  options = GovernorOptions();
  options.window = 0;
  EXPECT_NE(ValidateGovernorOptions(options), "");
  options = GovernorOptions();
  options.longest_pause = options.first_pause - 1;
  EXPECT_NE(ValidateGovernorOptions(options), "");
}

}  // namespace
}  // namespace llm
