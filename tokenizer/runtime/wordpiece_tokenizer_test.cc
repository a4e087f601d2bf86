// WordPieceTokenizer on all-MiniLM-L6-v2's compiled file: the behaviours the
// parity test cannot isolate (truncation edges, [UNK] words) and the errors a
// damaged file must give. Ids of whole texts are checked against tokenizers
// by wordpiece_parity_test.py.

#include "tokenizer/runtime/wordpiece_tokenizer.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace llm::tokenizer {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
}

// The compiled file's bytes, read once.
const std::string& FileBytes() {
  static const std::string bytes = ReadFile(std::getenv("WORDPIECE_FILE"));
  return bytes;
}

WordPieceTokenizer Load() {
  std::string error;
  auto tokenizer = WordPieceTokenizer::FromBytes(FileBytes(), &error);
  EXPECT_TRUE(tokenizer.has_value()) << error;
  return std::move(*tokenizer);
}

std::string LoadError(const std::string& bytes) {
  std::string error;
  EXPECT_FALSE(WordPieceTokenizer::FromBytes(bytes, &error).has_value());
  return error;
}

TEST(WordPieceTokenizerTest, SpecialTokensAndVocab) {
  const WordPieceTokenizer tokenizer = Load();
  EXPECT_EQ(tokenizer.vocab_size(), 30522);
  EXPECT_EQ(tokenizer.Token(tokenizer.cls_id()), "[CLS]");
  EXPECT_EQ(tokenizer.Token(tokenizer.sep_id()), "[SEP]");
  EXPECT_EQ(tokenizer.Token(tokenizer.unk_id()), "[UNK]");
  EXPECT_EQ(tokenizer.Token(tokenizer.pad_id()), "[PAD]");
  EXPECT_EQ(tokenizer.Token(-1), "");
  EXPECT_EQ(tokenizer.Token(30522), "");
}

TEST(WordPieceTokenizerTest, EncodesWordsAndContinuations) {
  const WordPieceTokenizer tokenizer = Load();
  const std::vector<int32_t> ids = tokenizer.Encode("Tokenizing, Ünïcode!");
  std::vector<std::string> tokens;
  for (int32_t id : ids) tokens.emplace_back(tokenizer.Token(id));
  EXPECT_EQ(tokens, (std::vector<std::string>{"[CLS]", "token", "##izing", ",",
                                              "unicode", "!", "[SEP]"}));
  EXPECT_EQ(tokenizer.Encode(""),
            (std::vector<int32_t>{tokenizer.cls_id(), tokenizer.sep_id()}));
}

TEST(WordPieceTokenizerTest, TruncatesToMaxTokens) {
  const WordPieceTokenizer tokenizer = Load();
  const std::vector<int32_t> full = tokenizer.Encode("a b c d e f");
  ASSERT_EQ(full.size(), 8u);
  EXPECT_EQ(tokenizer.Encode("a b c d e f", 8), full);
  EXPECT_EQ(tokenizer.Encode("a b c d e f", 100), full);
  const std::vector<int32_t> four = tokenizer.Encode("a b c d e f", 4);
  EXPECT_EQ(four, (std::vector<int32_t>{full[0], full[1], full[2],
                                        tokenizer.sep_id()}));
  EXPECT_EQ(tokenizer.Encode("a b c", 2),
            (std::vector<int32_t>{tokenizer.cls_id(), tokenizer.sep_id()}));
}

TEST(WordPieceTokenizerTest, UnknownAndOverlongWordsAreOneUnk) {
  const WordPieceTokenizer tokenizer = Load();
  const int32_t unk = tokenizer.unk_id();
  // A character with no token makes the whole word [UNK].
  EXPECT_EQ(tokenizer.Encode("ab\xE2\x98\x83"
                             "cd")[1],
            unk);
  EXPECT_EQ(tokenizer.Encode(std::string(101, 'x')).size(), 3u);
  EXPECT_EQ(tokenizer.Encode(std::string(101, 'x'))[1], unk);
  EXPECT_NE(tokenizer.Encode(std::string(100, 'x'))[1], unk);
}

TEST(WordPieceTokenizerTest, InvalidUtf8IsDropped) {
  const WordPieceTokenizer tokenizer = Load();
  EXPECT_EQ(tokenizer.Encode("a\xFF\xC3"
                             "b"),
            tokenizer.Encode("ab"));
}

TEST(WordPieceTokenizerTest, DamagedFilesAreRefused) {
  EXPECT_NE(LoadError("").find("no LLMWPTOK header"), std::string::npos);
  EXPECT_NE(LoadError(FileBytes().substr(0, FileBytes().size() - 1))
                .find("truncated or padded"),
            std::string::npos);
  std::string flipped = FileBytes();
  flipped[flipped.size() / 2] ^= 0x10;
  EXPECT_NE(LoadError(flipped).find("CRC-32 mismatch"), std::string::npos);
  std::string version = FileBytes();
  version[8] = 9;
  EXPECT_NE(LoadError(version).find("version 9 is not supported"),
            std::string::npos);
  std::string error;
  EXPECT_FALSE(WordPieceTokenizer::FromFile("/nonexistent.wpt", &error));
  EXPECT_NE(error.find("cannot open WordPiece file /nonexistent.wpt"),
            std::string::npos);
}

}  // namespace
}  // namespace llm::tokenizer
