// The context policies at their exact boundary and one token either side,
// with a stand-in token counter: each message costs its length plus 4
// template tokens, and the generation prompt 3.
#include "runtime/session/context_policy.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace llm {
namespace {

using tokenizer::ChatMessage;

int64_t Count(const std::vector<ChatMessage>& messages) {
  int64_t tokens = 3;
  for (const auto& m : messages) {
    tokens += 4 + static_cast<int64_t>(m.content.size());
  }
  return tokens;
}

// A system message and 3 earlier turns, 10 tokens per message, then the
// newest question: 10 + 60 + 10 + 3 = 83 tokens. Without the oldest turn 63,
// without two 43, the newest turn alone 23.
std::vector<ChatMessage> Conversation() {
  std::vector<ChatMessage> m = {{"system", "sys..."}};
  for (int turn = 0; turn < 3; ++turn) {
    m.push_back({"user", "ask" + std::to_string(turn) + ".."});
    m.push_back({"assistant", "say" + std::to_string(turn) + ".."});
  }
  m.push_back({"user", "newest"});
  return m;
}

struct Outcome {
  bool ok;
  ContextFit fit;
  std::string error;
};

Outcome Fit(ContextPolicy policy, int64_t context, int64_t reserve,
            std::vector<ChatMessage> messages = Conversation()) {
  Outcome out;
  out.ok = FitConversation(messages, policy, context, reserve, Count, &out.fit,
                           &out.error);
  return out;
}

TEST(ContextPolicy, ErrorPolicyAtTheBoundary) {
  ASSERT_EQ(Count(Conversation()), 83);
  // 83 + a reserve of 5 = 88.
  for (int64_t context : {88, 89}) {
    const Outcome out = Fit(ContextPolicy::kError, context, 5);
    ASSERT_TRUE(out.ok) << context << ": " << out.error;
    EXPECT_EQ(out.fit.messages.size(), 8u);
    EXPECT_EQ(out.fit.tokens, 83);
    EXPECT_EQ(out.fit.dropped_turns, 0);
  }
  const Outcome over = Fit(ContextPolicy::kError, 87, 5);
  EXPECT_FALSE(over.ok);
  EXPECT_NE(over.error.find("83 tokens"), std::string::npos) << over.error;
  EXPECT_NE(over.error.find("1 tokens over"), std::string::npos) << over.error;
  EXPECT_NE(over.error.find("drop_oldest_turns"), std::string::npos);
}

TEST(ContextPolicy, DropOldestTurnsKeepsWholeTurnsAtTheBoundary) {
  // Everything fits at 88: nothing dropped.
  EXPECT_EQ(Fit(ContextPolicy::kDropOldestTurns, 88, 5).fit.dropped_turns, 0);
  // One token short: the oldest turn (user + assistant) goes, whole.
  for (int64_t context : {87, 68}) {
    const Outcome out = Fit(ContextPolicy::kDropOldestTurns, context, 5);
    ASSERT_TRUE(out.ok) << out.error;
    EXPECT_EQ(out.fit.dropped_turns, 1) << context;
    EXPECT_EQ(out.fit.tokens, 63);
    ASSERT_EQ(out.fit.messages.size(), 6u);
    EXPECT_EQ(out.fit.messages[0].role, "system");
    EXPECT_EQ(out.fit.messages[1].content, "ask1..");
    EXPECT_EQ(out.fit.messages.back().content, "newest");
  }
  EXPECT_EQ(Fit(ContextPolicy::kDropOldestTurns, 67, 5).fit.dropped_turns, 2);
  // The newest turn alone: 23 + 5 = 28.
  const Outcome alone = Fit(ContextPolicy::kDropOldestTurns, 28, 5);
  ASSERT_TRUE(alone.ok) << alone.error;
  EXPECT_EQ(alone.fit.dropped_turns, 3);
  ASSERT_EQ(alone.fit.messages.size(), 2u);
  EXPECT_EQ(alone.fit.messages[0].role, "system");
  EXPECT_EQ(alone.fit.messages[1].content, "newest");
  const Outcome none = Fit(ContextPolicy::kDropOldestTurns, 27, 5);
  EXPECT_FALSE(none.ok);
  EXPECT_NE(none.error.find("newest turn alone is 23 tokens"),
            std::string::npos)
      << none.error;
  EXPECT_NE(none.error.find("1 tokens over"), std::string::npos);
}

TEST(ContextPolicy, WithoutASystemMessageTheFirstTurnCanGo) {
  std::vector<ChatMessage> messages = Conversation();
  messages.erase(messages.begin());  // 73 tokens
  const Outcome out = Fit(ContextPolicy::kDropOldestTurns, 77, 5, messages);
  ASSERT_TRUE(out.ok) << out.error;
  EXPECT_EQ(out.fit.dropped_turns, 1);
  EXPECT_EQ(out.fit.messages.front().content, "ask1..");
}

TEST(ContextPolicy, BadInputIsNamed) {
  EXPECT_NE(Fit(ContextPolicy::kError, 100, 0).error.find("reply reserve"),
            std::string::npos);
  EXPECT_NE(Fit(ContextPolicy::kError, 100, 1, {}).error.find("no messages"),
            std::string::npos);
  ContextPolicy policy;
  std::string error;
  EXPECT_TRUE(ParseContextPolicy("drop_oldest_turns", &policy, &error));
  EXPECT_EQ(policy, ContextPolicy::kDropOldestTurns);
  EXPECT_FALSE(ParseContextPolicy("sliding", &policy, &error));
  EXPECT_NE(error.find("error or drop_oldest_turns"), std::string::npos);
}

}  // namespace
}  // namespace llm
