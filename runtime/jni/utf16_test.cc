#include "runtime/jni/utf16.h"

#include <gtest/gtest.h>

namespace llm {
namespace {

TEST(Utf16Test, RoundTripsEveryPlane) {
  const std::string text =
      "a\u00e9\u20ac\U0001F600\U0010FFFD";  // 1, 2, 3, 4, 4 bytes
  const std::u16string utf16 = Utf8ToUtf16(text);
  EXPECT_EQ(utf16, u"a\u00e9\u20ac\U0001F600\U0010FFFD");
  EXPECT_EQ(utf16.size(), 7u);  // the two astral characters are surrogate pairs
  EXPECT_EQ(Utf16ToUtf8(utf16), text);
}

TEST(Utf16Test, NulIsOneZeroByteNotModifiedUtf8) {
  const std::u16string with_nul(u"a\0b", 3);
  EXPECT_EQ(Utf16ToUtf8(with_nul), std::string("a\0b", 3));
}

TEST(Utf16Test, UnpairedSurrogatesBecomeReplacementCharacters) {
  EXPECT_EQ(Utf16ToUtf8(std::u16string(1, u'\xD83D')), "\uFFFD");
  EXPECT_EQ(Utf16ToUtf8(std::u16string{u'\xDE00', u'x'}), "\uFFFDx");
}

TEST(Utf16Test, InvalidUtf8BecomesOneReplacementPerBadByte) {
  EXPECT_EQ(Utf8ToUtf16("\xF0\x9F\x98"),
            u"\uFFFD\uFFFD\uFFFD");                     // truncated emoji
  EXPECT_EQ(Utf8ToUtf16("\xC0\xAF"), u"\uFFFD\uFFFD");  // overlong '/'
  EXPECT_EQ(Utf8ToUtf16("\xED\xA0\x80"), u"\uFFFD\uFFFD\uFFFD");  // a surrogate
  EXPECT_EQ(Utf8ToUtf16("x\xFFy"), u"x\uFFFDy");
}

}  // namespace
}  // namespace llm
