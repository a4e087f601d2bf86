#include "tokenizer/runtime/wordpiece_file.h"

#include "tokenizer/runtime/byte_reader.h"
#include "tokenizer/runtime/section_parser.h"

namespace llm::tokenizer {
namespace {

constexpr std::string_view kMagic = "LLMWPTOK";
constexpr uint32_t kVersion = 1;
constexpr char32_t kMaxCodePoint = 0x10FFFF;
// A replacement is a few code points (NFD of one character, lower-cased).
constexpr uint32_t kMaxReplacementLength = 32;

class Parser : public SectionParser<Parser> {
 public:
  Parser(std::string_view payload, WordPieceFileContents* out)
      : SectionParser(payload), out_(*out) {}

  bool Run() {
    return Section("VOCB", &Parser::Vocab) &&
           Section("WPCF", &Parser::Config) &&
           Section("ADDT", &Parser::AddedTokens) &&
           Section("NORM", &Parser::Normalizer) &&
           Section("PRTK", &Parser::PreTokenizer) && Finish();
  }

 private:
  bool CheckTokenId(int64_t id, const char* what) {
    return SectionParser::CheckTokenId(id, out_.token_ends.size(), what);
  }

  bool Vocab(ByteReader& r) {
    return ReadVocab(r, &out_.token_bytes, &out_.token_ends);
  }

  bool Config(ByteReader& r) {
    out_.unk_id = r.I32();
    out_.cls_id = r.I32();
    out_.sep_id = r.I32();
    out_.pad_id = r.I32();
    out_.max_input_chars_per_word = r.U32();
    out_.continuing_prefix.assign(r.Bytes(r.U32()));
    if (!r.ok()) return false;
    return CheckTokenId(out_.unk_id, "[UNK] id") &&
           CheckTokenId(out_.cls_id, "[CLS] id") &&
           CheckTokenId(out_.sep_id, "[SEP] id") &&
           (out_.pad_id == -1 || CheckTokenId(out_.pad_id, "[PAD] id"));
  }

  bool AddedTokens(ByteReader& r) {
    const uint32_t count = r.U32();
    if (!r.CanRead(count, 8)) return Fail(Where() + "has a bad token count");
    out_.added_tokens.resize(count);
    for (WordPieceFileContents::AddedToken& token : out_.added_tokens) {
      token.id = r.I32();
      token.content.assign(r.Bytes(r.U32()));
      if (!r.ok()) return false;
      if (!CheckTokenId(token.id, "added token id")) return false;
      if (token.content.empty()) {
        return Fail(Where() + "has an empty token " + std::to_string(token.id));
      }
    }
    return true;
  }

  bool Ranges(ByteReader& r, std::vector<CodePointRange>* ranges) {
    const uint32_t count = r.U32();
    if (!r.CanRead(count, 8)) return Fail(Where() + "has a bad range count");
    ranges->resize(count);
    char32_t previous_last = 0;
    for (size_t i = 0; i < ranges->size(); ++i) {
      CodePointRange& range = (*ranges)[i];
      range.first = r.U32();
      range.last = r.U32();
      if (range.first > range.last || range.last > kMaxCodePoint ||
          (i > 0 && range.first <= previous_last)) {
        return Fail(Where() + "has unsorted or out-of-range code points");
      }
      previous_last = range.last;
    }
    return true;
  }

  bool Normalizer(ByteReader& r) {
    if (!Ranges(r, &out_.removed) || !Ranges(r, &out_.to_space) ||
        !Ranges(r, &out_.isolated)) {
      return false;
    }
    const uint32_t count = r.U32();
    if (!r.CanRead(count, 8)) return Fail(Where() + "has a bad mapping count");
    out_.replacements.resize(count);
    char32_t previous = 0;
    for (size_t i = 0; i < out_.replacements.size(); ++i) {
      WordPieceFileContents::Replacement& replacement = out_.replacements[i];
      replacement.code_point = r.U32();
      const uint32_t length = r.U32();
      if (!r.ok() || length > kMaxReplacementLength ||
          replacement.code_point > kMaxCodePoint ||
          (i > 0 && replacement.code_point <= previous)) {
        return Fail(Where() + "has a malformed mapping");
      }
      previous = replacement.code_point;
      replacement.text.resize(length);
      for (char32_t& c : replacement.text) {
        c = r.U32();
        if (c > kMaxCodePoint) return Fail(Where() + "maps beyond U+10FFFF");
      }
    }
    return true;
  }

  bool PreTokenizer(ByteReader& r) {
    return Ranges(r, &out_.whitespace) && Ranges(r, &out_.punctuation);
  }

  WordPieceFileContents& out_;
};

}  // namespace

std::optional<WordPieceFileContents> ParseWordPieceFile(std::string_view bytes,
                                                        std::string* error) {
  const std::optional<std::string_view> payload = ReadFrame(
      bytes,
      {kMagic, kVersion, "WordPiece",
       "not a compiled WordPiece tokenizer file (no LLMWPTOK header); build "
       "it with wordpiece_vocab, e.g. //models:minilm_l6_vocab"},
      error);
  if (!payload) return std::nullopt;
  WordPieceFileContents contents;
  Parser parser(*payload, &contents);
  if (!parser.Run()) {
    *error = "malformed WordPiece file: " + parser.error();
    return std::nullopt;
  }
  return contents;
}

}  // namespace llm::tokenizer
