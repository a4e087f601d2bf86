#include "runtime/tokenizer/tokenizer_file.h"

#include <limits>

#include "runtime/tokenizer/byte_reader.h"

namespace llm::tokenizer {
namespace {

constexpr std::string_view kMagic = "LLMBPETK";
// 2: PRTK gained the Llama 3 and Qwen2 regexes and the BPE flags.
constexpr uint32_t kVersion = 2;
constexpr uint32_t kBpeIgnoreMerges = 1;
constexpr uint32_t kChatNone = 0;
constexpr uint32_t kChatChatMl = 1;
constexpr uint32_t kFlagSpecial = 1;
constexpr uint32_t kFlagNormalized = 2;

// Parses each section in turn; the first error wins.
class Parser {
 public:
  Parser(std::string_view payload, TokenizerFileContents* out)
      : sections_(payload), out_(*out) {}

  bool Run() {
    return Section("VOCB", &Parser::Vocab) &&
           Section("BYTE", &Parser::ByteTokens) &&
           Section("MRGS", &Parser::Merges) &&
           Section("ADDT", &Parser::AddedTokens) &&
           Section("SPEC", &Parser::SpecialIds) &&
           Section("PRTK", &Parser::PreTokenizer) &&
           Section("CHAT", &Parser::Chat) &&
           Section("UNIC", &Parser::UnicodeClasses) && sections_.Finish();
  }

  const std::string& error() const { return sections_.error(); }

 private:
  bool Fail(const std::string& message) { return sections_.Fail(message); }
  std::string Where() const { return sections_.Where(); }
  bool Section(std::string_view tag, bool (Parser::*parse)(ByteReader&)) {
    return sections_.Next(tag,
                          [&](ByteReader& r) { return (this->*parse)(r); });
  }

  bool IsTokenId(int64_t id) const {
    return id >= 0 && id < static_cast<int64_t>(out_.token_ends.size());
  }
  bool CheckTokenId(int64_t id, const char* what) {
    if (IsTokenId(id)) return true;
    return Fail(Where() + what + " " + std::to_string(id) +
                " is not a token id (vocab size " +
                std::to_string(out_.token_ends.size()) + ")");
  }
  bool CheckOptionalTokenId(int32_t id, const char* what) {
    return id == -1 || CheckTokenId(id, what);
  }

  bool Vocab(ByteReader& r) {
    const uint32_t count = r.U32();
    if (count == 0 ||
        count > static_cast<uint32_t>(std::numeric_limits<int32_t>::max()) ||
        !r.CanRead(count, 4)) {
      return Fail(Where() + "has a bad token count " + std::to_string(count));
    }
    out_.token_ends.resize(count);
    uint32_t previous_end = 0;
    for (uint32_t& end : out_.token_ends) {
      end = r.U32();
      if (end < previous_end) return Fail(Where() + "has decreasing offsets");
      previous_end = end;
    }
    const std::string_view bytes = r.Bytes(previous_end);
    if (!r.ok()) return Fail(Where() + "is shorter than its token offsets");
    out_.token_bytes.assign(bytes);
    return true;
  }

  bool ByteTokens(ByteReader& r) {
    for (int32_t& id : out_.byte_token_ids) {
      id = r.I32();
      if (r.ok() && !CheckOptionalTokenId(id, "byte token")) return false;
    }
    return true;
  }

  bool Merges(ByteReader& r) {
    const uint32_t count = r.U32();
    if (!r.CanRead(count, 12)) return Fail(Where() + "has a bad merge count");
    out_.merges.resize(count);
    for (MergeRule& rule : out_.merges) {
      rule.left_id = r.I32();
      rule.right_id = r.I32();
      rule.merged_id = r.I32();
      if (!CheckTokenId(rule.left_id, "merge left id") ||
          !CheckTokenId(rule.right_id, "merge right id") ||
          !CheckTokenId(rule.merged_id, "merge result id")) {
        return false;
      }
    }
    return true;
  }

  bool AddedTokens(ByteReader& r) {
    const uint32_t count = r.U32();
    if (!r.CanRead(count, 12)) return Fail(Where() + "has a bad token count");
    out_.added_tokens.resize(count);
    for (AddedTokenEntry& token : out_.added_tokens) {
      token.id = r.I32();
      const uint32_t flags = r.U32();
      const std::string_view content = r.Bytes(r.U32());
      if (!r.ok()) return false;
      if (!CheckTokenId(token.id, "added token id")) return false;
      if (content.empty() || flags > (kFlagSpecial | kFlagNormalized)) {
        return Fail(Where() + "has a malformed token " +
                    std::to_string(token.id));
      }
      token.content.assign(content);
      token.special = flags & kFlagSpecial;
      token.normalized = flags & kFlagNormalized;
    }
    return true;
  }

  bool SpecialIds(ByteReader& r) {
    out_.bos_id = r.I32();
    out_.eos_id = r.I32();
    const uint32_t count = r.U32();
    if (!r.CanRead(count, 4)) return Fail(Where() + "has a bad stop id count");
    out_.stop_ids.resize(count);
    for (int32_t& id : out_.stop_ids) id = r.I32();
    if (!r.ok()) return false;
    if (!CheckOptionalTokenId(out_.bos_id, "bos id") ||
        !CheckOptionalTokenId(out_.eos_id, "eos id")) {
      return false;
    }
    for (int32_t id : out_.stop_ids) {
      if (!CheckTokenId(id, "stop id")) return false;
    }
    return true;
  }

  bool PreTokenizer(ByteReader& r) {
    const uint32_t kind = r.U32();
    const uint32_t flags = r.U32();
    if (!r.ok()) return false;
    if (kind < static_cast<uint32_t>(PreTokenizerKind::kGpt2) ||
        kind > static_cast<uint32_t>(PreTokenizerKind::kQwen2)) {
      return Fail("pre-tokenizer kind " + std::to_string(kind) +
                  " is not supported (1 GPT-2, 2 Llama 3, 3 Qwen2)");
    }
    if ((flags & ~kBpeIgnoreMerges) != 0) {
      return Fail("unknown BPE flags " + std::to_string(flags));
    }
    out_.pre_tokenizer = static_cast<PreTokenizerKind>(kind);
    out_.ignore_merges = (flags & kBpeIgnoreMerges) != 0;
    return true;
  }

  bool Chat(ByteReader& r) {
    const uint32_t kind = r.U32();
    const uint32_t has_default_system = r.U32();
    const std::string_view system = r.Bytes(r.U32());
    if (!r.ok()) return false;
    if ((kind != kChatNone && kind != kChatChatMl) || has_default_system > 1) {
      return Fail(Where() + "has unknown chat template kind " +
                  std::to_string(kind));
    }
    out_.has_chat_template = kind == kChatChatMl;
    if (has_default_system) out_.default_system_prompt = std::string(system);
    return true;
  }

  bool UnicodeClasses(ByteReader& r) {
    for (std::vector<CodePointRange>* ranges :
         {&out_.letters, &out_.numbers, &out_.whitespace}) {
      const uint32_t count = r.U32();
      if (!r.CanRead(count, 8)) return Fail(Where() + "has a bad range count");
      ranges->resize(count);
      for (CodePointRange& range : *ranges) {
        range.first = r.U32();
        range.last = r.U32();
      }
    }
    return true;
  }

  SectionReader sections_;
  TokenizerFileContents& out_;
};

}  // namespace

std::optional<TokenizerFileContents> ParseTokenizerFile(std::string_view bytes,
                                                        std::string* error) {
  const std::optional<std::string_view> payload =
      ReadFrame(bytes,
                {kMagic, kVersion, "tokenizer",
                 "not a compiled tokenizer file (no LLMBPETK header)"},
                error);
  if (!payload) return std::nullopt;
  TokenizerFileContents contents;
  Parser parser(*payload, &contents);
  if (!parser.Run()) {
    *error = "malformed tokenizer file: " + parser.error();
    return std::nullopt;
  }
  return contents;
}

}  // namespace llm::tokenizer
