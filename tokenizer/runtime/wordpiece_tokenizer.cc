#include "tokenizer/runtime/wordpiece_tokenizer.h"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <utility>

#include "tokenizer/runtime/utf8.h"

namespace llm::tokenizer {
namespace {

// What BertNormalizer does with a code point.
enum Normalization : uint8_t { kKeep, kRemove, kSpace, kIsolate, kReplace };
// How BertPreTokenizer treats a normalized code point.
enum PreTokenClass : uint8_t { kWordChar, kWhitespace, kPunctuation };

constexpr char32_t kReplacementCharacter = 0xFFFD;

void AppendUtf8(char32_t c, std::string& out) {
  if (c < 0x80) {
    out.push_back(static_cast<char>(c));
  } else if (c < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (c >> 6)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else if (c < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (c >> 12)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (c >> 18)));
    out.push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (c & 0x3F)));
  }
}

std::vector<AddedTokenMatcher::Token> AddedTokens(
    const WordPieceFileContents& contents) {
  std::vector<AddedTokenMatcher::Token> tokens;
  for (const auto& token : contents.added_tokens) {
    tokens.push_back({token.content, token.id});
  }
  return tokens;
}

}  // namespace

CodePointTable::CodePointTable() : direct_(kDirectLimit, 0) {}

void CodePointTable::Set(const std::vector<CodePointRange>& ranges,
                         uint8_t value) {
  for (const CodePointRange& range : ranges) {
    for (char32_t c = range.first; c <= range.last && c < kDirectLimit; ++c) {
      direct_[c] = value;
    }
    if (range.last >= kDirectLimit) {
      beyond_bmp_.push_back(
          {std::max(range.first, kDirectLimit), range.last, value});
    }
  }
  std::sort(beyond_bmp_.begin(), beyond_bmp_.end(),
            [](const Range& a, const Range& b) { return a.first < b.first; });
}

uint8_t CodePointTable::GetBeyondBmp(char32_t code_point) const {
  auto after = std::upper_bound(
      beyond_bmp_.begin(), beyond_bmp_.end(), code_point,
      [](char32_t c, const Range& range) { return c < range.first; });
  if (after == beyond_bmp_.begin()) return 0;
  const Range& range = *(after - 1);
  return code_point <= range.last ? range.value : 0;
}

// The word being collected: its UTF-8 bytes and where each character starts.
struct WordPieceTokenizer::WordState {
  std::string word;
  std::vector<uint32_t> char_starts;
  std::string piece;  // lookup buffer: prefix + part of word
};

std::optional<WordPieceTokenizer> WordPieceTokenizer::FromFile(
    const std::string& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot open WordPiece file " + path +
             "; build it with bazel build //models:minilm_l6_vocab";
    return std::nullopt;
  }
  const std::string bytes((std::istreambuf_iterator<char>(in)),
                          std::istreambuf_iterator<char>());
  auto tokenizer = FromBytes(bytes, error);
  if (!tokenizer) *error = path + ": " + *error;
  return tokenizer;
}

std::optional<WordPieceTokenizer> WordPieceTokenizer::FromBytes(
    std::string_view bytes, std::string* error) {
  std::optional<WordPieceFileContents> contents =
      ParseWordPieceFile(bytes, error);
  if (!contents) return std::nullopt;
  return WordPieceTokenizer(std::move(*contents));
}

WordPieceTokenizer::WordPieceTokenizer(WordPieceFileContents contents)
    : contents_(std::move(contents)), added_tokens_(AddedTokens(contents_)) {
  ids_by_token_.reserve(contents_.token_ends.size());
  uint32_t start = 0;
  for (size_t id = 0; id < contents_.token_ends.size(); ++id) {
    const uint32_t end = contents_.token_ends[id];
    // The first of duplicate strings wins, as in a vocab.txt read top down.
    ids_by_token_.emplace(contents_.token_bytes.substr(start, end - start),
                          static_cast<int32_t>(id));
    start = end;
  }
  normalization_.Set(contents_.removed, kRemove);
  normalization_.Set(contents_.to_space, kSpace);
  normalization_.Set(contents_.isolated, kIsolate);
  std::vector<CodePointRange> replaced;
  for (const auto& replacement : contents_.replacements) {
    replaced.push_back({replacement.code_point, replacement.code_point});
  }
  normalization_.Set(replaced, kReplace);
  pre_tokenization_.Set(contents_.whitespace, kWhitespace);
  pre_tokenization_.Set(contents_.punctuation, kPunctuation);
}

std::string_view WordPieceTokenizer::Token(int32_t id) const {
  if (id < 0 || id >= vocab_size()) return {};
  const uint32_t start = id == 0 ? 0 : contents_.token_ends[id - 1];
  return std::string_view(contents_.token_bytes)
      .substr(start, contents_.token_ends[id] - start);
}

std::vector<int32_t> WordPieceTokenizer::Encode(std::string_view text,
                                                size_t max_tokens) const {
  std::vector<int32_t> ids = {contents_.cls_id};
  WordState state;
  added_tokens_.Split(
      text,
      [&](std::string_view ordinary) { EncodeText(ordinary, state, ids); },
      [&](int32_t id) { ids.push_back(id); });
  if (max_tokens > 0 && ids.size() + 1 > max_tokens) {
    ids.resize(std::max<size_t>(max_tokens, 2) - 1);
  }
  ids.push_back(contents_.sep_id);
  return ids;
}

void WordPieceTokenizer::EncodeText(std::string_view text, WordState& state,
                                    std::vector<int32_t>& ids) const {
  while (!text.empty()) {
    const Utf8Char c = DecodeUtf8(text);
    text.remove_prefix(c.length);
    const char32_t code_point = c.valid ? c.code_point : kReplacementCharacter;
    switch (normalization_.Get(code_point)) {
      case kKeep:
        EmitNormalized(code_point, state, ids);
        break;
      case kRemove:
        break;
      case kSpace:
        EmitNormalized(U' ', state, ids);
        break;
      case kIsolate:
        EmitNormalized(U' ', state, ids);
        EmitNormalized(code_point, state, ids);
        EmitNormalized(U' ', state, ids);
        break;
      case kReplace:
        for (const char32_t r : *Replacement(code_point)) {
          EmitNormalized(r, state, ids);
        }
        break;
    }
  }
  EncodeWord(state, ids);
}

void WordPieceTokenizer::EmitNormalized(char32_t code_point, WordState& state,
                                        std::vector<int32_t>& ids) const {
  switch (pre_tokenization_.Get(code_point)) {
    case kWhitespace:
      EncodeWord(state, ids);
      break;
    case kPunctuation:
      EncodeWord(state, ids);
      state.char_starts.push_back(0);
      AppendUtf8(code_point, state.word);
      EncodeWord(state, ids);
      break;
    default:
      state.char_starts.push_back(static_cast<uint32_t>(state.word.size()));
      AppendUtf8(code_point, state.word);
      break;
  }
}

void WordPieceTokenizer::EncodeWord(WordState& state,
                                    std::vector<int32_t>& ids) const {
  if (state.word.empty()) return;
  const size_t chars = state.char_starts.size();
  const size_t first_new = ids.size();
  bool known = chars <= contents_.max_input_chars_per_word;
  // Greedy longest match: from each start, the longest vocabulary piece.
  for (size_t start = 0; known && start < chars;) {
    int32_t found = -1;
    size_t end = chars;
    for (; end > start; --end) {
      const size_t begin_byte = state.char_starts[start];
      const size_t end_byte =
          end == chars ? state.word.size() : state.char_starts[end];
      state.piece.assign(start > 0 ? contents_.continuing_prefix : "");
      state.piece.append(state.word, begin_byte, end_byte - begin_byte);
      const auto it = ids_by_token_.find(state.piece);
      if (it != ids_by_token_.end()) {
        found = it->second;
        break;
      }
    }
    if (found < 0) {
      known = false;
      break;
    }
    ids.push_back(found);
    start = end;
  }
  if (!known) {
    ids.resize(first_new);
    ids.push_back(contents_.unk_id);
  }
  state.word.clear();
  state.char_starts.clear();
}

const std::u32string* WordPieceTokenizer::Replacement(
    char32_t code_point) const {
  const auto& replacements = contents_.replacements;
  const auto it =
      std::lower_bound(replacements.begin(), replacements.end(), code_point,
                       [](const WordPieceFileContents::Replacement& r,
                          char32_t c) { return r.code_point < c; });
  // Present: kReplace is set only for code points of this list.
  return &it->text;
}

}  // namespace llm::tokenizer
