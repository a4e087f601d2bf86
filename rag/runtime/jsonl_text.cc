#include "rag/runtime/jsonl_text.h"

#include <cstdint>

namespace llm::rag {
namespace {

// Nesting deeper than this is refused rather than recursed into.
constexpr int kMaxDepth = 64;

class JsonReader {
 public:
  explicit JsonReader(std::string_view text) : text_(text) {}

  std::optional<std::string> TextField(std::string* error) {
    std::optional<std::string> text;
    bool ok = Expect('{');
    if (ok && !Consume('}')) {
      do {
        std::string key;
        ok = String(&key) && Expect(':');
        if (!ok) break;
        if (key == "text") {
          std::string value;
          SkipSpace();
          if (Peek() != '"') {
            ok = Fail("\"text\" is not a string");
            break;
          }
          ok = String(&value);
          text = std::move(value);
        } else {
          ok = SkipValue(0);
        }
      } while (ok && Consume(','));
      ok = ok && Expect('}');
    }
    SkipSpace();
    if (ok && position_ != text_.size()) ok = Fail("trailing characters");
    if (ok && !text) ok = Fail("no \"text\" field");
    if (!ok) {
      *error = error_;
      return std::nullopt;
    }
    return text;
  }

 private:
  bool Fail(const std::string& what) {
    if (error_.empty()) {
      error_ = what + " at byte " + std::to_string(position_);
    }
    return false;
  }
  void SkipSpace() {
    while (position_ < text_.size() &&
           (text_[position_] == ' ' || text_[position_] == '\t' ||
            text_[position_] == '\r' || text_[position_] == '\n')) {
      ++position_;
    }
  }
  char Peek() const { return position_ < text_.size() ? text_[position_] : 0; }
  bool Consume(char c) {
    SkipSpace();
    if (Peek() != c) return false;
    ++position_;
    return true;
  }
  bool Expect(char c) {
    return Consume(c) || Fail(std::string("expected '") + c + "'");
  }

  bool Hex4(uint32_t* value) {
    if (position_ + 4 > text_.size()) return Fail("short \\u escape");
    *value = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = text_[position_++];
      *value <<= 4;
      if (c >= '0' && c <= '9') {
        *value |= c - '0';
      } else if (c >= 'a' && c <= 'f') {
        *value |= c - 'a' + 10;
      } else if (c >= 'A' && c <= 'F') {
        *value |= c - 'A' + 10;
      } else {
        return Fail("bad \\u escape");
      }
    }
    return true;
  }

  static void AppendUtf8(uint32_t c, std::string* out) {
    if (c < 0x80) {
      out->push_back(static_cast<char>(c));
    } else if (c < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (c >> 6)));
      out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else if (c < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (c >> 12)));
      out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (c >> 18)));
      out->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
    }
  }

  // A JSON string; `out` may be null to skip it.
  bool String(std::string* out) {
    SkipSpace();
    if (Peek() != '"') return Fail("expected a string");
    ++position_;
    while (position_ < text_.size()) {
      const char c = text_[position_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) {
        return Fail("unescaped control character in a string");
      }
      if (c != '\\') {
        if (out) out->push_back(c);
        continue;
      }
      if (position_ >= text_.size()) break;
      const char escape = text_[position_++];
      char plain = 0;
      switch (escape) {
        case '"':
        case '\\':
        case '/':
          plain = escape;
          break;
        case 'b':
          plain = '\b';
          break;
        case 'f':
          plain = '\f';
          break;
        case 'n':
          plain = '\n';
          break;
        case 'r':
          plain = '\r';
          break;
        case 't':
          plain = '\t';
          break;
        case 'u': {
          uint32_t code;
          if (!Hex4(&code)) return false;
          if (code >= 0xD800 && code < 0xDC00 &&
              text_.substr(position_, 2) == "\\u") {
            const size_t before = position_;
            position_ += 2;
            uint32_t low;
            if (!Hex4(&low)) return false;
            if (low >= 0xDC00 && low < 0xE000) {
              code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
            } else {
              position_ = before;  // a lone high surrogate, then another
            }
          }
          // Lone surrogates cannot be UTF-8: U+FFFD, as Python's
          // json + encode("utf-8", "replace") would give "?"-like loss.
          if (code >= 0xD800 && code < 0xE000) code = 0xFFFD;
          if (out) AppendUtf8(code, out);
          continue;
        }
        default:
          return Fail("bad escape \\" + std::string(1, escape));
      }
      if (out) out->push_back(plain);
    }
    return Fail("unterminated string");
  }

  bool SkipValue(int depth) {
    if (depth > kMaxDepth) return Fail("nesting too deep");
    SkipSpace();
    const char c = Peek();
    if (c == '"') return String(nullptr);
    if (c == '{' || c == '[') {
      const char close = c == '{' ? '}' : ']';
      ++position_;
      if (Consume(close)) return true;
      do {
        if (c == '{' && !(String(nullptr) && Expect(':'))) return false;
        if (!SkipValue(depth + 1)) return false;
      } while (Consume(','));
      return Expect(close);
    }
    // Numbers, true, false, null: the run of characters they may contain.
    const size_t start = position_;
    while (position_ < text_.size()) {
      const char d = text_[position_];
      if (!((d >= '0' && d <= '9') || (d >= 'a' && d <= 'z') || d == '-' ||
            d == '+' || d == '.' || d == 'E')) {
        break;
      }
      ++position_;
    }
    const std::string_view word = text_.substr(start, position_ - start);
    if (word.empty()) return Fail("expected a value");
    if (word[0] >= 'a' && word != "true" && word != "false" && word != "null") {
      return Fail("unknown literal " + std::string(word));
    }
    return true;
  }

  std::string_view text_;
  size_t position_ = 0;
  std::string error_;
};

}  // namespace

std::optional<std::string> ReadTextField(std::string_view line,
                                         std::string* error) {
  return JsonReader(line).TextField(error);
}

}  // namespace llm::rag
