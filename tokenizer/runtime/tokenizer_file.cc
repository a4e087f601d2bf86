#include "tokenizer/runtime/tokenizer_file.h"

#include "tokenizer/runtime/byte_reader.h"
#include "tokenizer/runtime/section_parser.h"

namespace llm::tokenizer {
namespace {

constexpr std::string_view kMagic = "LLMBPETK";
// 2: PRTK gained the Llama 3 and Qwen2 regexes and the BPE flags.
// 3: CHAT gained the Llama 3 header format.
constexpr uint32_t kVersion = 3;
constexpr uint32_t kBpeIgnoreMerges = 1;
constexpr uint32_t kChatNone = 0;
constexpr uint32_t kChatChatMl = 1;
constexpr uint32_t kChatLlama3 = 2;
constexpr uint32_t kLlama3AlwaysSystem = 1;
constexpr uint32_t kLlama3Trim = 2;
constexpr uint32_t kFlagSpecial = 1;
constexpr uint32_t kFlagNormalized = 2;

// Parses each section in turn; the first error wins.
class Parser : public SectionParser<Parser> {
 public:
  Parser(std::string_view payload, TokenizerFileContents* out)
      : SectionParser(payload), out_(*out) {}

  bool Run() {
    return Section("VOCB", &Parser::Vocab) &&
           Section("BYTE", &Parser::ByteTokens) &&
           Section("MRGS", &Parser::Merges) &&
           Section("ADDT", &Parser::AddedTokens) &&
           Section("SPEC", &Parser::SpecialIds) &&
           Section("PRTK", &Parser::PreTokenizer) &&
           Section("CHAT", &Parser::Chat) &&
           Section("UNIC", &Parser::UnicodeClasses) && Finish();
  }

 private:
  bool IsTokenId(int64_t id) const {
    return id >= 0 && id < static_cast<int64_t>(out_.token_ends.size());
  }
  bool CheckTokenId(int64_t id, const char* what) {
    return SectionParser::CheckTokenId(id, out_.token_ends.size(), what);
  }
  bool CheckOptionalTokenId(int32_t id, const char* what) {
    return id == -1 || CheckTokenId(id, what);
  }

  bool Vocab(ByteReader& r) {
    return ReadVocab(r, &out_.token_bytes, &out_.token_ends);
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
    if (kind > kChatLlama3 || has_default_system > 1) {
      return Fail(Where() + "has unknown chat template kind " +
                  std::to_string(kind));
    }
    std::optional<std::string> default_system;
    if (has_default_system) default_system = std::string(system);
    if (kind == kChatChatMl) {
      out_.chat_template = ChatTemplate::ChatMl(std::move(default_system));
    } else if (kind == kChatLlama3) {
      const uint32_t flags = r.U32();
      const std::string_view bos = r.Bytes(r.U32());
      if (!r.ok()) return false;
      if (flags > (kLlama3AlwaysSystem | kLlama3Trim)) {
        return Fail(Where() + "has unknown Llama 3 flags " +
                    std::to_string(flags));
      }
      Llama3Options options;
      options.bos = std::string(bos);
      options.always_system = (flags & kLlama3AlwaysSystem) != 0;
      options.trim = (flags & kLlama3Trim) != 0;
      out_.chat_template =
          ChatTemplate::Llama3(std::move(options), std::move(default_system));
    }
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
