// The budget policy of prompt_assembly.h on SmolLM2's real tokenizer.
#include "rag/runtime/prompt_assembly.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace llm::rag {
namespace {

using tokenizer::BpeTokenizer;

BpeTokenizer LoadTokenizer() {
  std::string error;
  auto tokenizer = BpeTokenizer::FromFile(std::getenv("TOKENIZER_BIN"), &error);
  EXPECT_TRUE(tokenizer.has_value()) << error;
  return std::move(*tokenizer);
}

std::string Words(const std::string& word, int count) {
  std::string text;
  for (int i = 0; i < count; ++i) text += (i ? " " : "") + word;
  return text;
}

class PromptAssemblyTest : public ::testing::Test {
 protected:
  PromptAssemblyTest() : tokenizer_(LoadTokenizer()) {
    texts_ = {"Anne Elliot lived at\nKellynch Hall.  " + Words("alpha", 100),
              "Captain Wentworth wrote a letter. " + Words("beta", 100),
              "Louisa fell on the Cobb. " + Words("gamma", 100)};
    for (const std::string& text : texts_) passages_.push_back(text);
  }

  AssembledPrompt Assemble(int64_t context, const std::string& question) {
    PromptOptions options;
    options.context_tokens = context;
    options.max_new_tokens = 32;
    AssembledPrompt prompt;
    std::string error;
    EXPECT_TRUE(AssemblePrompt(tokenizer_, question, passages_, options,
                               &prompt, &error))
        << error;
    EXPECT_LE(static_cast<int64_t>(prompt.ids.size()), context - 32);
    EXPECT_EQ(prompt.ids, tokenizer_.Encode(prompt.text));
    return prompt;
  }

  BpeTokenizer tokenizer_;
  std::vector<std::string> texts_;
  std::vector<std::string_view> passages_;
};

TEST_F(PromptAssemblyTest, EverythingFitsInABigContext) {
  const AssembledPrompt prompt = Assemble(2048, "Where did Anne live?");
  EXPECT_EQ(prompt.passages_used, 3u);
  EXPECT_FALSE(prompt.last_passage_truncated);
  EXPECT_NE(prompt.text.find("<|im_start|>system\n"), std::string::npos);
  const size_t first =
      prompt.text.find("Anne Elliot lived at Kellynch Hall. alpha");
  const size_t second = prompt.text.find("Captain Wentworth wrote");
  const size_t third = prompt.text.find("Louisa fell");
  EXPECT_NE(first, std::string::npos) << "whitespace runs are collapsed";
  EXPECT_LT(first, second) << "passages in rank order";
  EXPECT_LT(second, third);
  EXPECT_NE(prompt.text.find("Question: Where did Anne live?"),
            std::string::npos);
  EXPECT_NE(prompt.text.find("<|im_end|>\n<|im_start|>assistant\n"),
            std::string::npos);
}

TEST_F(PromptAssemblyTest, LowerRankedPassagesAreDroppedFirst) {
  const AssembledPrompt all = Assemble(2048, "Where did Anne live?");
  // Room for about two passages: the third (lowest rank) must go.
  const int64_t two = static_cast<int64_t>(all.ids.size()) - 60;
  const AssembledPrompt prompt = Assemble(two + 32, "Where did Anne live?");
  EXPECT_EQ(prompt.passages_used, 2u);
  EXPECT_FALSE(prompt.last_passage_truncated);
  EXPECT_NE(prompt.text.find("beta"), std::string::npos);
  EXPECT_EQ(prompt.text.find("gamma"), std::string::npos);
}

TEST_F(PromptAssemblyTest, TheBestPassageIsCutWhenNothingFitsWhole) {
  const AssembledPrompt prompt = Assemble(150, "Where did Anne live?");
  EXPECT_EQ(prompt.passages_used, 1u);
  EXPECT_TRUE(prompt.last_passage_truncated);
  EXPECT_NE(prompt.text.find("Kellynch Hall. alpha"), std::string::npos);
  EXPECT_NE(prompt.text.find(" ...\n"), std::string::npos) << prompt.text;
  EXPECT_EQ(prompt.text.find("beta"), std::string::npos);
}

TEST_F(PromptAssemblyTest, AQuestionOverTheBudgetIsAnError) {
  PromptOptions options;
  options.context_tokens = 256;
  options.max_new_tokens = 128;
  AssembledPrompt prompt;
  std::string error;
  EXPECT_FALSE(AssemblePrompt(tokenizer_, Words("why", 300), passages_, options,
                              &prompt, &error));
  EXPECT_NE(error.find("over the 128-token budget"), std::string::npos)
      << error;
  EXPECT_NE(error.find("shorten the question"), std::string::npos) << error;
  EXPECT_FALSE(
      AssemblePrompt(tokenizer_, " \n ", passages_, options, &prompt, &error));
  EXPECT_NE(error.find("empty"), std::string::npos) << error;
}

}  // namespace
}  // namespace llm::rag
