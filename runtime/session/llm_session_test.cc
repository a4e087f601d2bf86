// The session on the tiny random-weight programs: a conversation built turn
// by turn gives exactly what a fresh prefill of the same tokens gives, while
// prefilling only the new tokens, and decoding stays allocation-free.
#include "runtime/session/llm_session.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace llm {
namespace {

std::unique_ptr<LlmSession> Open(const char* env, std::string* error) {
  const char* path = std::getenv(env);
  EXPECT_NE(path, nullptr) << env << " is not set";
  RunnerOptions options;
  options.program.pte_path = path ? path : "";
  options.threads = 1;
  options.warmup = true;
  return LlmSession::Create(options, error);
}

GenerationConfig Greedy(int64_t tokens) {
  GenerationConfig config;
  config.max_new_tokens = tokens;
  config.stop_at_eos = false;
  return config;
}

std::vector<int64_t> Turn(int index, int length) {
  std::vector<int64_t> ids;
  for (int i = 0; i < length; ++i) ids.push_back(300 + 37 * index + 11 * i);
  return ids;
}

std::vector<int64_t> Reply(LlmSession* session, int64_t tokens,
                           GenerationStats* stats) {
  std::vector<int64_t> out;
  std::string error;
  EXPECT_TRUE(session->Generate(
      Greedy(tokens),
      [&](int64_t t) {
        out.push_back(t);
        return true;
      },
      stats, &error))
      << error;
  return out;
}

TEST(LlmSession, TurnByTurnEqualsAFreshPrefill) {
  for (const char* pte : {"TINY_FP32_PTE", "TINY_8DA4W_PTE"}) {
    std::string error;
    auto session = Open(pte, &error);
    ASSERT_TRUE(session) << error;
    std::vector<int64_t> conversation;
    std::vector<std::vector<int64_t>> replies;
    for (int turn = 0; turn < 4; ++turn) {
      // Longer than one max_seq_len chunk on the second turn.
      const std::vector<int64_t> user = Turn(turn, turn == 1 ? 40 : 9);
      const size_t before = conversation.size();
      conversation.insert(conversation.end(), user.begin(), user.end());
      GenerationStats stats;
      ASSERT_TRUE(session->Prefill(conversation, &stats, &error)) << error;
      // The previous reply's last token was sampled but never fed: it is
      // prefilled with the new turn.
      const int64_t cached = turn == 0 ? 0 : static_cast<int64_t>(before) - 1;
      EXPECT_EQ(stats.reused_tokens, cached) << pte;
      EXPECT_EQ(stats.prefilled_tokens,
                static_cast<int64_t>(conversation.size()) - cached);
      replies.push_back(Reply(session.get(), 12, &stats));
      EXPECT_EQ(stats.decode_allocations, 0) << pte << " turn " << turn;
      // The reply joins the conversation as generated.
      conversation.insert(conversation.end(), replies.back().begin(),
                          replies.back().end());
      // All but the last sampled token are in the cache.
      EXPECT_EQ(session->position(),
                static_cast<int64_t>(conversation.size()) - 1);
    }

    // Each turn again, from an empty cache: the same replies.
    for (int turn = 0; turn < 4; ++turn) {
      std::vector<int64_t> prefix;
      for (int t = 0; t <= turn; ++t) {
        const auto user = Turn(t, t == 1 ? 40 : 9);
        prefix.insert(prefix.end(), user.begin(), user.end());
        if (t < turn) {
          prefix.insert(prefix.end(), replies[t].begin(), replies[t].end());
        }
      }
      session->Reset();
      GenerationStats stats;
      ASSERT_TRUE(session->Prefill(prefix, &stats, &error)) << error;
      EXPECT_EQ(stats.reused_tokens, 0);
      EXPECT_EQ(Reply(session.get(), 12, &stats), replies[turn])
          << pte << ": turn " << turn << " differs from a fresh prefill";
    }
  }
}

TEST(LlmSession, AnEditedConversationReusesOnlyTheCommonPrefix) {
  std::string error;
  auto session = Open("TINY_FP32_PTE", &error);
  ASSERT_TRUE(session) << error;
  GenerationStats stats;
  const std::vector<int64_t> first = {5, 6, 7, 8, 9, 10};
  ASSERT_TRUE(session->Prefill(first, &stats, &error)) << error;
  const std::vector<int64_t> original = Reply(session.get(), 6, &stats);

  // The same conversation again: only its last token is fed, for logits.
  ASSERT_TRUE(session->Prefill(first, &stats, &error)) << error;
  EXPECT_EQ(stats.reused_tokens, 5);
  EXPECT_EQ(stats.prefilled_tokens, 1);
  EXPECT_EQ(Reply(session.get(), 6, &stats), original);

  // Diverging at token 3: positions 3.. are rewritten, not read stale.
  const std::vector<int64_t> edited = {5, 6, 7, 99, 98, 97};
  ASSERT_TRUE(session->Prefill(edited, &stats, &error)) << error;
  EXPECT_EQ(stats.reused_tokens, 3);
  const std::vector<int64_t> from_edit = Reply(session.get(), 6, &stats);
  session->Reset();
  ASSERT_TRUE(session->Prefill(edited, &stats, &error)) << error;
  EXPECT_EQ(Reply(session.get(), 6, &stats), from_edit);
}

TEST(LlmSession, AppendFeedsTheDeltaAndMisuseIsNamed) {
  std::string error;
  auto session = Open("TINY_FP32_PTE", &error);
  ASSERT_TRUE(session) << error;
  GenerationStats stats;
  EXPECT_FALSE(session->Generate(Greedy(4), nullptr, &stats, &error));
  EXPECT_NE(error.find("Prefill or Append a turn first"), std::string::npos);

  ASSERT_TRUE(session->Append({1, 2, 3}, &stats, &error)) << error;
  const auto reply = Reply(session.get(), 3, &stats);
  EXPECT_FALSE(session->Generate(Greedy(4), nullptr, &stats, &error));
  EXPECT_NE(error.find("Append the next turn first"), std::string::npos);
  ASSERT_TRUE(session->Append({reply.back(), 4, 5}, &stats, &error)) << error;
  EXPECT_EQ(stats.reused_tokens, 5);  // 3 prompt + 2 fed reply tokens
  EXPECT_EQ(stats.prefilled_tokens, 3);

  // A conversation that leaves no room for a reply token.
  const int64_t context = session->runner().limits().max_context_len;
  std::vector<int64_t> full(static_cast<size_t>(context), 7);
  EXPECT_FALSE(session->Prefill(full, &stats, &error));
  EXPECT_NE(error.find("1 tokens over"), std::string::npos) << error;
  full.pop_back();
  EXPECT_TRUE(session->Prefill(full, &stats, &error)) << error;
  EXPECT_EQ(Reply(session.get(), 5, &stats).size(), 2u);
  EXPECT_EQ(stats.stop_reason, "context_full");
}

}  // namespace
}  // namespace llm
