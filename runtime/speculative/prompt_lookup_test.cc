#include "runtime/speculative/prompt_lookup.h"

#include <gtest/gtest.h>

#include <vector>

namespace llm {
namespace {

std::vector<int64_t> Propose(const std::vector<int64_t>& history,
                             int64_t max_tokens,
                             const PromptLookupOptions& options = {}) {
  PromptLookupDrafter drafter(options);
  std::vector<int64_t> draft(static_cast<size_t>(max_tokens) + 1, -1);
  const int64_t n =
      drafter.Propose(history.data(), static_cast<int64_t>(history.size()),
                      max_tokens, draft.data());
  EXPECT_EQ(draft[static_cast<size_t>(max_tokens)], -1) << "wrote past max";
  draft.resize(static_cast<size_t>(n));
  return draft;
}

TEST(PromptLookup, ProposesWhatFollowedTheLatestTokensEarlier) {
  // "7 8" appeared before, followed by 9 10 11.
  EXPECT_EQ(Propose({1, 7, 8, 9, 10, 11, 2, 7, 8}, 3),
            (std::vector<int64_t>{9, 10, 11}));
}

TEST(PromptLookup, StopsAtMaxTokensAndAtTheEndOfTheHistory) {
  EXPECT_EQ(Propose({1, 7, 8, 9, 10, 11, 2, 7, 8}, 2),
            (std::vector<int64_t>{9, 10}));
  // The draft may run into the suffix itself: a repeating pattern.
  EXPECT_EQ(Propose({7, 8, 9, 7, 8}, 5), (std::vector<int64_t>{9, 7, 8}));
}

TEST(PromptLookup, NoMatchProposesNothing) {
  EXPECT_TRUE(Propose({1, 2, 3, 4, 5, 6}, 4).empty());
  EXPECT_TRUE(Propose({}, 4).empty());
  EXPECT_TRUE(Propose({5}, 4).empty());
  EXPECT_TRUE(Propose({1, 7, 8, 7, 8}, 0).empty());
}

TEST(PromptLookup, TheLongestSuffixWinsThenTheMostRecent) {
  // "3 7 8" occurs once (followed by 50); "7 8" more recently (followed
  // by 60). The 3-token match is the better predictor.
  EXPECT_EQ(Propose({3, 7, 8, 50, 1, 7, 8, 60, 3, 7, 8}, 1),
            (std::vector<int64_t>{50}));
  // Two equally long matches: the most recent one.
  EXPECT_EQ(Propose({7, 8, 50, 7, 8, 60, 7, 8}, 1), (std::vector<int64_t>{60}));
}

TEST(PromptLookup, ASingleTokenMatchOnlyWhenAllowed) {
  const std::vector<int64_t> history = {4, 9, 5, 4};
  EXPECT_TRUE(Propose(history, 2).empty());
  PromptLookupOptions one;
  one.min_ngram = 1;
  EXPECT_EQ(Propose(history, 2, one), (std::vector<int64_t>{9, 5}));
}

TEST(PromptLookup, ValidatesItsOptions) {
  EXPECT_EQ(ValidatePromptLookupOptions({}), "");
  EXPECT_NE(ValidatePromptLookupOptions({/*max_ngram=*/2, /*min_ngram=*/0}),
            "");
  EXPECT_NE(ValidatePromptLookupOptions({/*max_ngram=*/1, /*min_ngram=*/2}),
            "");
}

}  // namespace
}  // namespace llm
