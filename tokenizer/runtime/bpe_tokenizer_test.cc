// BpeTokenizer on SmolLM2's compiled tokenizer (path in $TOKENIZER_BIN).
// Expected ids are what Hugging Face tokenizers 0.23 gives for
// encode(text, add_special_tokens=False); tokenizer_parity_test.py compares
// the two on megabytes of text, these cases pin the behaviours by name.

#include "tokenizer/runtime/bpe_tokenizer.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace llm::tokenizer {
namespace {

std::string TokenizerPath() {
  const char* path = std::getenv("TOKENIZER_BIN");
  return path == nullptr ? "" : path;
}

std::string ReadFile(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << file.rdbuf();
  return bytes.str();
}

// zlib's CRC-32, to forge files whose checksum is right but whose contents
// are not.
uint32_t Crc32(std::string_view data) {
  uint32_t crc = 0xFFFFFFFFu;
  for (const char byte : data) {
    crc ^= static_cast<unsigned char>(byte);
    for (int bit = 0; bit < 8; ++bit) {
      crc = (crc & 1) ? 0xEDB88320u ^ (crc >> 1) : crc >> 1;
    }
  }
  return crc ^ 0xFFFFFFFFu;
}

void PutU32(std::string& bytes, size_t offset, uint32_t value) {
  for (int i = 0; i < 4; ++i)
    bytes[offset + i] = static_cast<char>(value >> (8 * i));
}

constexpr size_t kHeaderSize = 20;

// (GoogleTest without GoogleMock has no HasSubstr.)
::testing::AssertionResult Contains(const std::string& text,
                                    const std::string& part) {
  if (text.find(part) != std::string::npos) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure()
         << "\"" << text << "\" does not contain \"" << part << "\"";
}

void FixCrc(std::string& bytes) {
  PutU32(bytes, 16, Crc32(std::string_view(bytes).substr(kHeaderSize)));
}

class BpeTokenizerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_FALSE(TokenizerPath().empty())
        << "set TOKENIZER_BIN to a compiled SmolLM2 tokenizer";
    std::string error;
    tokenizer_ = new std::optional<BpeTokenizer>(
        BpeTokenizer::FromFile(TokenizerPath(), &error));
    ASSERT_TRUE(tokenizer_->has_value()) << error;
  }
  static void TearDownTestSuite() {
    delete tokenizer_;
    tokenizer_ = nullptr;
  }

  const BpeTokenizer& tokenizer() const { return **tokenizer_; }

  // The bytes of each token of `text`: shows how the text was split.
  std::vector<std::string> Pieces(std::string_view text) const {
    std::vector<std::string> pieces;
    for (const int32_t id : tokenizer().Encode(text)) {
      pieces.emplace_back(tokenizer().TokenBytes(id));
    }
    return pieces;
  }

  // Loading is shared by the tests: it is what takes time.
  static std::optional<BpeTokenizer>* tokenizer_;
};

std::optional<BpeTokenizer>* BpeTokenizerTest::tokenizer_ = nullptr;

using Ids = std::vector<int32_t>;
using Strings = std::vector<std::string>;

TEST_F(BpeTokenizerTest, Accessors) {
  EXPECT_EQ(tokenizer().vocab_size(), 49152);
  EXPECT_EQ(tokenizer().bos_id(), 1);              // <|im_start|>
  EXPECT_EQ(tokenizer().eos_id(), 2);              // <|im_end|>
  EXPECT_EQ(tokenizer().stop_ids(), (Ids{0, 2}));  // + <|endoftext|>
  EXPECT_TRUE(tokenizer().IsStop(0));
  EXPECT_FALSE(tokenizer().IsStop(1));
  EXPECT_TRUE(tokenizer().IsSpecial(16));
  EXPECT_FALSE(tokenizer().IsSpecial(17));
}

TEST_F(BpeTokenizerTest, EmptyText) {
  EXPECT_EQ(tokenizer().Encode(""), Ids{});
  EXPECT_EQ(tokenizer().Decode({}), "");
}

TEST_F(BpeTokenizerTest, PlainText) {
  EXPECT_EQ(tokenizer().Encode("Hello world"), (Ids{19556, 905}));
  EXPECT_EQ(tokenizer().Decode({19556, 905}), "Hello world");
}

TEST_F(BpeTokenizerTest, SpecialTokensAreRecognisedInText) {
  EXPECT_EQ(tokenizer().Encode("<|im_start|>user\nHi<|im_end|>\n"),
            (Ids{1, 4093, 198, 26843, 2, 198}));
  EXPECT_EQ(tokenizer().Encode("<|im_end|><|im_start|>"), (Ids{2, 1}));
  // An unfinished one is ordinary text.
  EXPECT_EQ(tokenizer().Encode("<|im_start"), (Ids{44, 108, 306, 79, 3738}));
}

TEST_F(BpeTokenizerTest, DecodeKeepsOrSkipsSpecialTokens) {
  const Ids ids = {1, 4093, 198, 26843, 2, 198};
  EXPECT_EQ(tokenizer().Decode(ids), "<|im_start|>user\nHi<|im_end|>\n");
  EXPECT_EQ(tokenizer().Decode(ids, /*skip_special_tokens=*/true),
            "user\nHi\n");
}

TEST_F(BpeTokenizerTest, WhitespaceBeforeAWordLeavesItsLastSpaceToTheWord) {
  // \s+(?!\S): the run stops one short, and that space leads " b".
  EXPECT_EQ(Pieces("a  b"), (Strings{"a", " ", " b"}));
  EXPECT_EQ(Pieces("a \n\n b"), (Strings{"a", " \n\n", " b"}));
  // Only U+0020 joins a word; a tab stands alone.
  EXPECT_EQ(Pieces("a\t\tb"), (Strings{"a", "\t", "\t", "b"}));
}

TEST_F(BpeTokenizerTest, TrailingWhitespaceIsOneRun) {
  EXPECT_EQ(Pieces("x   "), (Strings{"x", "   "}));
  EXPECT_EQ(tokenizer().Encode(" \n"), (Ids{3717}));
}

TEST_F(BpeTokenizerTest, UnicodeWhitespace) {
  // NBSP and U+3000 are \s; neither has a token of its own here.
  EXPECT_EQ(tokenizer().Encode("\u00a0\u00a0x"), (Ids{15442, 15442, 104}));
  EXPECT_EQ(tokenizer().Encode("a\u3000\u3000b"),
            (Ids{81, 12109, 218, 12109, 218, 82}));
}

TEST_F(BpeTokenizerTest, Contractions) {
  EXPECT_EQ(Pieces("it's they'll we've I'M don't"),
            (Strings{"it", "'s", " they", "'ll", " we", "'ve", " I", "'", "M",
                     " don", "'t"}));
  EXPECT_EQ(Pieces("''s"), (Strings{"''", "s"}));
}

TEST_F(BpeTokenizerTest, Digits) {
  EXPECT_EQ(tokenizer().Encode("12345 3.14"),
            (Ids{33, 34, 35, 36, 37, 216, 35, 30, 33, 36}));
  EXPECT_EQ(tokenizer().Encode("\u0663\u0664\u0665"),  // Arabic-Indic digits
            (Ids{164, 113, 164, 114, 164, 115}));
}

TEST_F(BpeTokenizerTest, EmojiAndCjk) {
  EXPECT_EQ(tokenizer().Encode("\U0001F916"), (Ids{10813, 114, 240}));
  // Man, ZWJ, woman, ZWJ, girl.
  EXPECT_EQ(tokenizer().Encode("\U0001F468\u200d\U0001F469\u200d\U0001F467"),
            (Ids{10813, 235, 118, 321, 231, 10813, 235, 119, 321, 231, 10813,
                 235, 117}));
  EXPECT_EQ(tokenizer().Encode("你好世界"),
            (Ids{18645, 250, 48392, 138, 7906, 240, 178, 239, 230}));
  EXPECT_EQ(tokenizer().Encode("한국어"),
            (Ids{33085, 246, 181, 130, 251, 183, 240, 129}));
  // A combining mark is not a letter: it splits from its base.
  EXPECT_EQ(tokenizer().Encode("e\u0301"), (Ids{85, 151, 219}));
}

TEST_F(BpeTokenizerTest, TokenBytesCanSplitACharacter) {
  const Ids ids = tokenizer().Encode("\U0001F916");
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_EQ(tokenizer().TokenBytes(ids[0]), "\xf0\x9f");
  EXPECT_EQ(tokenizer().TokenBytes(ids[1]), "\xa4");
  EXPECT_EQ(tokenizer().TokenBytes(ids[2]), "\x96");
  EXPECT_EQ(tokenizer().TokenBytes(1), "<|im_start|>");
}

TEST_F(BpeTokenizerTest, BytesWithoutATokenAreDroppedAsTokenizersDoes) {
  EXPECT_EQ(tokenizer().Encode("\x04"), Ids{});
  // ... and their neighbours then merge: "!!" is one token.
  EXPECT_EQ(tokenizer().Encode("!\x04!"), Ids{10095});
}

TEST_F(BpeTokenizerTest, InvalidUtf8IsEncodedByteForByte) {
  // A truncated "你", a stray continuation byte, an overlong "/": each
  // invalid stretch is punctuation-like, and every byte survives.
  const std::string text = "ab\xe4\xbd cd\x80!\xe0\x80\xaf";
  std::string round_trip;
  for (const int32_t id : tokenizer().Encode(text)) {
    round_trip += tokenizer().TokenBytes(id);
  }
  EXPECT_EQ(round_trip, text);
  // Decode replaces each maximal invalid subpart with U+FFFD.
  EXPECT_EQ(tokenizer().Decode(tokenizer().Encode(text)),
            "ab\uFFFD cd\uFFFD!\uFFFD\uFFFD\uFFFD");
}

TEST_F(BpeTokenizerTest, RandomBytesDoNotCrash) {
  std::mt19937 random(1);
  for (int i = 0; i < 200; ++i) {
    std::string text(random() % 64, '\0');
    for (char& c : text) c = static_cast<char>(random());
    const Ids ids = tokenizer().Encode(text);
    for (const int32_t id : ids) ASSERT_LT(id, tokenizer().vocab_size());
    tokenizer().Decode(ids);
  }
}

TEST_F(BpeTokenizerTest, LongRunsMerge) {
  const std::string text(5000, 'a');
  EXPECT_EQ(tokenizer().Decode(tokenizer().Encode(text)), text);
  const std::string spaces(5000, ' ');
  EXPECT_EQ(tokenizer().Decode(tokenizer().Encode(spaces)), spaces);
}

TEST_F(BpeTokenizerTest, DecodeIgnoresIdsOutsideTheVocab) {
  EXPECT_EQ(tokenizer().Decode({-1, 19556, 49152, 905, 1 << 30}),
            "Hello world");
  EXPECT_EQ(tokenizer().TokenBytes(-1), "");
  EXPECT_EQ(tokenizer().TokenBytes(49152), "");
}

TEST_F(BpeTokenizerTest, ChatTemplateWithDefaultSystemPrompt) {
  const ChatTemplate* chat = tokenizer().chat_template();
  ASSERT_NE(chat, nullptr);
  EXPECT_EQ(chat->Apply({{"user", "Hi"}}, /*add_generation_prompt=*/true),
            "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, "
            "trained by Hugging Face<|im_end|>\n"
            "<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n");
  EXPECT_EQ(chat->Apply({{"system", "Be brief."}, {"user", "Hi"}}, false),
            "<|im_start|>system\nBe brief.<|im_end|>\n"
            "<|im_start|>user\nHi<|im_end|>\n");
  EXPECT_EQ(chat->Apply({}, true), "<|im_start|>assistant\n");
}

// --- Bad files ---------------------------------------------------------------

class BadFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(TokenizerPath().empty());
    good_ = ReadFile(TokenizerPath());
    ASSERT_GT(good_.size(), kHeaderSize);
  }

  // The error for `bytes`, or "" if they load.
  static std::string LoadError(std::string_view bytes) {
    std::string error;
    const bool loaded = BpeTokenizer::FromBytes(bytes, &error).has_value();
    return loaded ? "" : error;
  }

  std::string good_;
};

TEST_F(BadFileTest, GoodFileLoads) { EXPECT_EQ(LoadError(good_), ""); }

TEST_F(BadFileTest, MissingFile) {
  std::string error;
  EXPECT_FALSE(BpeTokenizer::FromFile("/nonexistent/x.tok", &error));
  EXPECT_TRUE(Contains(error, "/nonexistent/x.tok"));
  EXPECT_TRUE(Contains(error, "cannot open"));
}

TEST_F(BadFileTest, EmptyOrForeignFile) {
  EXPECT_TRUE(Contains(LoadError(""), "not a compiled tokenizer file"));
  EXPECT_TRUE(
      Contains(LoadError("{\"model\": {}}"), "not a compiled tokenizer file"));
}

TEST_F(BadFileTest, Truncated) {
  for (size_t size : {kHeaderSize, good_.size() / 2, good_.size() - 1}) {
    EXPECT_TRUE(Contains(LoadError(std::string_view(good_).substr(0, size)),
                         "truncated"))
        << size;
  }
}

TEST_F(BadFileTest, FlippedByte) {
  std::string bytes = good_;
  bytes[bytes.size() / 3] ^= 0x40;
  EXPECT_TRUE(Contains(LoadError(bytes), "CRC-32"));
}

TEST_F(BadFileTest, OtherVersion) {
  std::string bytes = good_;
  PutU32(bytes, 8, 4);
  EXPECT_TRUE(Contains(LoadError(bytes), "version 4 is not supported"));
  // A file from before the Llama 3 chat template.
  PutU32(bytes, 8, 2);
  EXPECT_TRUE(Contains(LoadError(bytes), "version 2 is not supported"));
  // A file from before the Llama 3 and Qwen2 pre-tokenizers.
  PutU32(bytes, 8, 1);
  EXPECT_TRUE(Contains(LoadError(bytes), "version 1 is not supported"));
}

TEST_F(BadFileTest, HugeCountWithAValidChecksum) {
  std::string bytes = good_;
  PutU32(bytes, kHeaderSize + 8, 0x7FFFFFFF);  // VOCB's token count
  FixCrc(bytes);
  EXPECT_TRUE(Contains(LoadError(bytes), "bad token count"));
}

TEST_F(BadFileTest, RandomCorruptionWithValidChecksumsNeverCrashes) {
  // Whatever a corrupted file says, loading fails cleanly or gives a
  // tokenizer that encodes without reading out of bounds (run under ASan to
  // see the latter). Corruption lands in the small sections and the tables'
  // first bytes, where counts and offsets live.
  std::mt19937 random(2);
  int loaded = 0;
  for (int i = 0; i < 300; ++i) {
    std::string bytes = good_;
    for (int flips = 0; flips < 3; ++flips) {
      const size_t offset = random() % 2 ? kHeaderSize + random() % 4096
                                         : bytes.size() - 1 - random() % 32768;
      bytes[offset] = static_cast<char>(random());
    }
    FixCrc(bytes);
    std::string error;
    const std::optional<BpeTokenizer> tokenizer =
        BpeTokenizer::FromBytes(bytes, &error);
    if (!tokenizer) {
      EXPECT_FALSE(error.empty());
      continue;
    }
    ++loaded;
    tokenizer->Decode(
        tokenizer->Encode("Hello world <|im_end|> 12 \xe4\xbd\xa0 \xf0\x9f"));
  }
  EXPECT_LT(loaded, 300);
}

}  // namespace
}  // namespace llm::tokenizer
