#include "rag/runtime/jsonl_text.h"

#include <gtest/gtest.h>

#include <string>

namespace llm::rag {
namespace {

std::string Text(const std::string& line) {
  std::string error;
  auto text = ReadTextField(line, &error);
  EXPECT_TRUE(text.has_value()) << line << ": " << error;
  return text.value_or("");
}

std::string Error(const std::string& line) {
  std::string error;
  EXPECT_FALSE(ReadTextField(line, &error).has_value()) << line;
  return error;
}

TEST(JsonlTextTest, ReadsTheTextField) {
  EXPECT_EQ(Text(R"({"text": "hello"})"), "hello");
  EXPECT_EQ(Text(R"(  {"id":7,"text":"a","x":[1,{"y":null}],"z":true} )"), "a");
  EXPECT_EQ(Text(R"({"text": ""})"), "");
}

TEST(JsonlTextTest, DecodesEscapes) {
  EXPECT_EQ(Text(R"({"text": "a\"b\\c\/d\n\t\r\b\f"})"), "a\"b\\c/d\n\t\r\b\f");
  EXPECT_EQ(Text(R"({"text": "\u00e9\u4e2d"})"), "\xC3\xA9\xE4\xB8\xAD");
  // A surrogate pair is one code point (U+1F916); a lone one is U+FFFD.
  EXPECT_EQ(Text(R"({"text": "\ud83e\udd16"})"), "\xF0\x9F\xA4\x96");
  EXPECT_EQ(Text(R"({"text": "\ud83e!"})"), "\xEF\xBF\xBD!");
  EXPECT_EQ(Text("{\"text\": \"caf\xC3\xA9\"}"), "caf\xC3\xA9");
}

TEST(JsonlTextTest, ExplainsBadLines) {
  EXPECT_NE(Error(R"({"title": "x"})").find("no \"text\" field"),
            std::string::npos);
  EXPECT_NE(Error(R"({"text": 5})").find("\"text\" is not a string"),
            std::string::npos);
  EXPECT_NE(Error(R"(["text"])").find("expected '{'"), std::string::npos);
  EXPECT_NE(Error(R"({"text": "x")").find("expected '}'"), std::string::npos);
  EXPECT_NE(Error(R"({"text": "x"} extra)").find("trailing"),
            std::string::npos);
  EXPECT_NE(Error(R"({"text": "x\q"})").find("bad escape"), std::string::npos);
  EXPECT_NE(Error(R"({"text": "x)").find("unterminated"), std::string::npos);
  EXPECT_NE(Error(R"({"a": nope, "text": "x"})").find("unknown literal"),
            std::string::npos);
  EXPECT_NE(Error("{\"text\": \"a\tb\"}").find("control character"),
            std::string::npos);
}

}  // namespace
}  // namespace llm::rag
