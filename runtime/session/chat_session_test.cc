// A 4-turn chat on the real SmolLM2 programs, once through the session (each
// turn prefills only what is new) and once the stateless way (each turn
// prefills the whole conversation, reuse off).
//   fp32 (portable): every turn's greedy reply is identical.
//   int4 (XNNPACK): GEMM and GEMV round differently, so the stateless run is
//   teacher-forced along the session's replies and must predict the same
//   token at nearly every step, as the Python parity test measures.
#include "runtime/session/chat_session.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace llm {
namespace {

using tokenizer::ChatMessage;

const std::vector<std::string> kQuestions = {
    "What is the capital of France?",
    "And what river flows through it?",
    "Name one famous museum there.",
    "Summarise our conversation in one sentence.",
};
constexpr int64_t kReplyTokens = 16;

std::unique_ptr<ChatSession> Open(const char* pte_env, std::string* error) {
  ChatOptions options;
  options.program.pte_path = std::getenv(pte_env);
  options.tokenizer_path = std::getenv("SMOLLM2_TOK");
  options.threads = 1;
  return ChatSession::Open(options, error);
}

struct Turn {
  std::vector<int64_t> tokens;
  std::string text;
  GenerationStats stats;
};

Turn Ask(ChatSession* chat, const std::vector<ChatMessage>& messages,
         bool reuse, const std::vector<int64_t>& forced = {}) {
  ChatRequest request;
  request.messages = messages;
  request.max_new_tokens = kReplyTokens;
  request.reuse_cache = reuse;
  request.forced_tokens = forced;
  Turn turn;
  std::string error;
  EXPECT_TRUE(chat->Generate(
      request,
      [&](int64_t token, const std::string& text) {
        turn.tokens.push_back(token);
        turn.text += text;
        return true;
      },
      &turn.stats, &error))
      << error;
  return turn;
}

// The session's turns, with the conversation each was asked in.
std::vector<std::pair<std::vector<ChatMessage>, Turn>> Converse(
    ChatSession* chat) {
  std::vector<std::pair<std::vector<ChatMessage>, Turn>> turns;
  std::vector<ChatMessage> messages;
  for (const std::string& question : kQuestions) {
    messages.push_back({"user", question});
    Turn turn = Ask(chat, messages, /*reuse=*/true);
    turns.emplace_back(messages, turn);
    messages.push_back({"assistant", turn.text});
  }
  return turns;
}

// allocation_free: llama_fp32's linears run on ExecuTorch's optimized kernel,
// whose Eigen GEMM mallocs its blocking buffers on every call at this size;
// the XNNPACK programs allocate nothing while decoding.
void ExpectReuse(
    const std::vector<std::pair<std::vector<ChatMessage>, Turn>>& turns,
    bool allocation_free) {
  EXPECT_EQ(turns[0].second.stats.reused_tokens, 0);
  for (size_t i = 1; i < turns.size(); ++i) {
    const GenerationStats& s = turns[i].second.stats;
    // At least everything before the previous reply is reused; the new
    // part is the reply's end and the new question (under 40 tokens).
    EXPECT_GE(s.reused_tokens, turns[i - 1].second.stats.prompt_tokens)
        << "turn " << i + 1;
    EXPECT_LT(s.prefilled_tokens, 40) << "turn " << i + 1;
    EXPECT_EQ(s.reused_tokens + s.prefilled_tokens, s.prompt_tokens);
    if (allocation_free) {
      EXPECT_EQ(s.decode_allocations, 0);
    }
  }
}

TEST(ChatSession, Fp32TurnsEqualTheStatelessReplies) {
  std::string error;
  auto chat = Open("LLAMA_FP32_PTE", &error);
  ASSERT_TRUE(chat) << error;
  const auto turns = Converse(chat.get());
  ExpectReuse(turns, /*allocation_free=*/false);
  for (size_t i = 0; i < turns.size(); ++i) {
    const Turn fresh = Ask(chat.get(), turns[i].first, /*reuse=*/false);
    EXPECT_EQ(fresh.stats.reused_tokens, 0);
    EXPECT_EQ(fresh.stats.prompt_tokens, turns[i].second.stats.prompt_tokens);
    EXPECT_EQ(fresh.tokens, turns[i].second.tokens)
        << "turn " << i + 1 << ": session said '" << turns[i].second.text
        << "', a fresh prefill said '" << fresh.text << "'";
  }
}

TEST(ChatSession, Int4TurnsAgreeWithTheStatelessRun) {
  std::string error;
  auto chat = Open("LLAMA_INT4_PTE", &error);
  ASSERT_TRUE(chat) << error;
  const auto turns = Converse(chat.get());
  ExpectReuse(turns, /*allocation_free=*/true);
  int agree = 0, total = 0;
  for (const auto& [messages, turn] : turns) {
    const Turn forced = Ask(chat.get(), messages, /*reuse=*/false, turn.tokens);
    for (size_t step = 0; step < turn.tokens.size(); ++step) {
      ++total;
      // forced.tokens[step] is what the stateless run predicted at a step
      // where the session's token was fed.
      agree += step < forced.tokens.size() &&
               forced.tokens[step] == turn.tokens[step];
    }
  }
  ASSERT_GT(total, 0);
  const double rate = static_cast<double>(agree) / total;
  EXPECT_GE(rate, 0.9) << agree << "/" << total << " steps agree";
  std::printf("int4 session vs stateless: %d/%d steps agree\n", agree, total);
}

}  // namespace
}  // namespace llm
