#include "runtime/speculative/governor.h"

#include <gtest/gtest.h>

namespace llm {
namespace {

GovernorOptions Options() {
  GovernorOptions options;
  options.window = 2;
  options.first_pause = 3;
  options.longest_pause = 6;
  return options;
}

// How many of the next `steps` calls to MayPropose refuse.
int Refusals(SpeculationGovernor* governor, int steps) {
  int refused = 0;
  for (int i = 0; i < steps; ++i) refused += governor->MayPropose() ? 0 : 1;
  return refused;
}

TEST(Governor, NeedsAPlainStepToCompareWith) {
  SpeculationGovernor governor(Options());
  EXPECT_FALSE(governor.MayPropose());
  governor.RecordPlain(10);
  EXPECT_TRUE(governor.MayPropose());
}

TEST(Governor, KeepsDraftingWhileVerifyingWins) {
  SpeculationGovernor governor(Options());
  governor.RecordPlain(10);
  for (int i = 0; i < 10; ++i) governor.RecordVerify(15, 3);  // 5 ms a token
  EXPECT_EQ(Refusals(&governor, 20), 0);
  EXPECT_EQ(governor.pauses(), 0);
}

TEST(Governor, PausesWhileVerifyingLosesAndDoublesThePause) {
  SpeculationGovernor governor(Options());
  governor.RecordPlain(10);
  // Two rejected drafts: 14 ms for one token each, against 10 ms plain.
  governor.RecordVerify(14, 1);
  EXPECT_EQ(governor.pauses(), 0) << "one call is not a window";
  governor.RecordVerify(14, 1);
  EXPECT_EQ(governor.pauses(), 1);
  EXPECT_EQ(Refusals(&governor, 3), 3);
  EXPECT_TRUE(governor.MayPropose()) << "the pause is over: probe again";
  governor.RecordVerify(14, 1);
  governor.RecordVerify(14, 1);
  EXPECT_EQ(Refusals(&governor, 7), 6) << "the second pause is 6 steps";
  governor.RecordVerify(14, 1);
  governor.RecordVerify(14, 1);
  EXPECT_EQ(Refusals(&governor, 7), 6) << "pauses stop growing at 6";
}

TEST(Governor, AWinningWindowResetsThePause) {
  SpeculationGovernor governor(Options());
  governor.RecordPlain(10);
  governor.RecordVerify(14, 1);
  governor.RecordVerify(14, 1);
  EXPECT_EQ(Refusals(&governor, 3), 3);
  governor.RecordVerify(14, 4);
  governor.RecordVerify(14, 4);  // 3.5 ms a token
  governor.RecordVerify(14, 1);
  governor.RecordVerify(14, 1);
  EXPECT_EQ(Refusals(&governor, 4), 3) << "back to the first pause";
}

TEST(Governor, FollowsThePlainStepsCost) {
  SpeculationGovernor governor(Options());
  governor.RecordPlain(10);
  // Plain steps grow dearer (a longer context): 12 ms per token of
  // verifying, which lost at 10 ms, now wins.
  for (int i = 0; i < 40; ++i) governor.RecordPlain(20);
  governor.RecordVerify(24, 2);
  governor.RecordVerify(24, 2);
  EXPECT_EQ(governor.pauses(), 0);
}

}  // namespace
}  // namespace llm
