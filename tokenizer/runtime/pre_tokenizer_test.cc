// The three pre-tokenizer regexes piece by piece, against what Hugging Face
// tokenizers' pre_tokenize_str gives for the same strings (its Split with the
// families' regexes, and SmolLM2's ByteLevel): contractions in any case,
// including Oniguruma's case-folded long s; a punctuation or tab lead joining
// a word; line-break runs; digits in threes (Llama 3) or ones (Qwen2).
#include "tokenizer/runtime/pre_tokenizer.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tokenizer/runtime/tokenizer_file.h"

namespace llm::tokenizer {
namespace {

PreTokenizer Make(PreTokenizerKind kind) {
  std::ifstream in(std::getenv("TOKENIZER_BIN"), std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  std::string error;
  auto contents = ParseTokenizerFile(bytes, &error);
  EXPECT_TRUE(contents) << error;
  auto classifier = CodePointClassifier::Create(
      contents->letters, contents->numbers, contents->whitespace, &error);
  EXPECT_TRUE(classifier) << error;
  return PreTokenizer(kind, std::move(*classifier));
}

std::vector<std::string> Pieces(const PreTokenizer& pre,
                                const std::string& text) {
  std::vector<std::string> pieces;
  pre.Split(text, [&](std::string_view piece) { pieces.emplace_back(piece); });
  return pieces;
}

using P = std::vector<std::string>;

TEST(PreTokenizer, Llama3) {
  const PreTokenizer pre = Make(PreTokenizerKind::kLlama3);
  EXPECT_EQ(Pieces(pre, "Hello!world\n\n\n  x 12345"),
            (P{"Hello", "!world", "\n\n\n", " ", " x", " ", "123", "45"}));
  EXPECT_EQ(Pieces(pre, "don'T I'LL it'\u017f"),
            (P{"don", "'T", " I", "'LL", " it", "'\u017f"}));
  EXPECT_EQ(Pieces(pre, "tab\tword  \n\n  next"),
            (P{"tab", "\tword", "  \n\n", " ", " next"}));
  EXPECT_EQ(Pieces(pre, "x!!\n\ny\r\n"), (P{"x", "!!\n\n", "y", "\r\n"}));
  EXPECT_EQ(Pieces(pre, " 2024-12-01 "),
            (P{" ", "202", "4", "-", "12", "-", "01", " "}));
  EXPECT_EQ(Pieces(pre, "\u3000\u3000abc 1\u00bd\u0663\u0664\u0665"),
            (P{"\u3000", "\u3000abc", " ", "1\u00bd\u0663", "\u0664\u0665"}));
}

TEST(PreTokenizer, Qwen2SplitsDigitsOneByOne) {
  const PreTokenizer pre = Make(PreTokenizerKind::kQwen2);
  EXPECT_EQ(Pieces(pre, "Hello!world\n\n\n  x 12345"),
            (P{"Hello", "!world", "\n\n\n", " ", " x", " ", "1", "2", "3", "4",
               "5"}));
  EXPECT_EQ(Pieces(pre, " 2024-12-01 "),
            (P{" ", "2", "0", "2", "4", "-", "1", "2", "-", "0", "1", " "}));
  EXPECT_EQ(Pieces(pre, "\u3000\u3000abc 1\u00bd\u0663\u0664\u0665"),
            (P{"\u3000", "\u3000abc", " ", "1", "\u00bd", "\u0663", "\u0664",
               "\u0665"}));
}

TEST(PreTokenizer, Gpt2IsUnchanged) {
  const PreTokenizer pre = Make(PreTokenizerKind::kGpt2);
  EXPECT_EQ(Pieces(pre, "Hello!world\n\n\n  x 12345"),
            (P{"Hello", "!", "world", "\n\n\n ", " x", " 12345"}));
  EXPECT_EQ(Pieces(pre, "don'T I'LL it'\u017f"),
            (P{"don", "'", "T", " I", "'", "LL", " it", "'", "\u017f"}));
  EXPECT_EQ(Pieces(pre, "x!!\n\ny\r\n"),
            (P{"x", "!!", "\n", "\n", "y", "\r\n"}));
  EXPECT_EQ(Pieces(pre, " 2024-12-01 "),
            (P{" 2024", "-", "12", "-", "01", " "}));
}

}  // namespace
}  // namespace llm::tokenizer
