#include "tokenizer/runtime/bpe_tokenizer.h"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <unordered_map>
#include <utility>

#include "tokenizer/runtime/tokenizer_file.h"
#include "tokenizer/runtime/utf8.h"

namespace llm::tokenizer {
namespace {

// Pieces are cached per Encode call: words repeat a lot in long text, and a
// cache local to the call needs no lock. Long pieces rarely repeat, and the
// cap bounds the memory a pathological text can make it use.
constexpr size_t kMaxCachedPieceBytes = 64;
constexpr size_t kMaxCachedPieces = 1 << 16;

}  // namespace

// Scratch space for one Encode call, reused from piece to piece.
struct BpeTokenizer::EncodeState {
  // A token in a piece being merged; the live ones form a linked list.
  struct Symbol {
    int32_t id;  // -1 once merged into its left neighbour
    int32_t prev;
    int32_t next;
  };
  // A possible merge of the symbol at `position` with the next one. It is
  // stale if either has changed since it was queued.
  struct Candidate {
    int32_t rank;
    int32_t position;
    int32_t left_id;
    int32_t right_id;
    int32_t merged_id;
  };
  // Heap order: lowest rank first, then leftmost, as tokenizers merges.
  static bool ComesAfter(const Candidate& a, const Candidate& b) {
    return a.rank != b.rank ? a.rank > b.rank : a.position > b.position;
  }

  std::vector<Symbol> symbols;
  std::vector<Candidate> candidates;
  // Piece -> (offset, count) in cached_ids.
  std::unordered_map<std::string_view, std::pair<uint32_t, uint32_t>> cache;
  std::vector<int32_t> cached_ids;
};

std::optional<BpeTokenizer> BpeTokenizer::FromFile(const std::string& path,
                                                   std::string* error) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    *error = path + ": cannot open the tokenizer file";
    return std::nullopt;
  }
  std::ostringstream bytes;
  bytes << file.rdbuf();
  if (file.bad()) {
    *error = path + ": cannot read the tokenizer file";
    return std::nullopt;
  }
  std::optional<BpeTokenizer> tokenizer = FromBytes(bytes.str(), error);
  if (!tokenizer) *error = path + ": " + *error;
  return tokenizer;
}

std::optional<BpeTokenizer> BpeTokenizer::FromBytes(std::string_view bytes,
                                                    std::string* error) {
  std::optional<TokenizerFileContents> contents =
      ParseTokenizerFile(bytes, error);
  if (!contents) return std::nullopt;
  std::optional<MergeTable> merges =
      MergeTable::Create(contents->merges, error);
  std::optional<CodePointClassifier> classifier =
      merges ? CodePointClassifier::Create(contents->letters, contents->numbers,
                                           contents->whitespace, error)
             : std::nullopt;
  if (!classifier) {
    *error = "malformed tokenizer file: " + *error;
    return std::nullopt;
  }

  std::vector<AddedTokenMatcher::Token> raw_added, normalized_added;
  std::vector<bool> is_special(contents->token_ends.size(), false);
  for (AddedTokenEntry& token : contents->added_tokens) {
    if (token.special) is_special[token.id] = true;
    (token.normalized ? normalized_added : raw_added)
        .push_back({std::move(token.content), token.id});
  }

  BpeTokenizer tokenizer(
      std::move(*merges),
      PreTokenizer(contents->pre_tokenizer, std::move(*classifier)),
      AddedTokenMatcher(std::move(raw_added)),
      AddedTokenMatcher(std::move(normalized_added)));
  tokenizer.token_bytes_ = std::move(contents->token_bytes);
  tokenizer.token_ends_ = std::move(contents->token_ends);
  tokenizer.byte_token_ids_ = contents->byte_token_ids;
  tokenizer.is_special_ = std::move(is_special);
  tokenizer.bos_id_ = contents->bos_id;
  tokenizer.eos_id_ = contents->eos_id;
  tokenizer.stop_ids_ = std::move(contents->stop_ids);
  if (contents->ignore_merges) {
    uint32_t start = 0;
    for (size_t id = 0; id < tokenizer.token_ends_.size(); ++id) {
      const uint32_t end = tokenizer.token_ends_[id];
      // Added tokens are cut out before pre-tokenization, never looked up.
      if (!tokenizer.is_special_[id]) {
        tokenizer.whole_tokens_.emplace(
            tokenizer.token_bytes_.substr(start, end - start),
            static_cast<int32_t>(id));
      }
      start = end;
    }
  }
  tokenizer.chat_template_ = std::move(contents->chat_template);
  return tokenizer;
}

std::vector<int32_t> BpeTokenizer::Encode(std::string_view text) const {
  EncodeState state;
  std::vector<int32_t> ids;
  ids.reserve(text.size() / 4 + 1);  // about 4 bytes per token in English
  const auto add_token = [&](int32_t id) { ids.push_back(id); };
  raw_added_tokens_.Split(
      text,
      [&](std::string_view segment) {
        if (normalized_added_tokens_.empty()) {
          EncodeOrdinaryText(segment, state, ids);
          return;
        }
        normalized_added_tokens_.Split(
            segment,
            [&](std::string_view rest) {
              EncodeOrdinaryText(rest, state, ids);
            },
            add_token);
      },
      add_token);
  return ids;
}

void BpeTokenizer::EncodeOrdinaryText(std::string_view text, EncodeState& state,
                                      std::vector<int32_t>& ids) const {
  pre_tokenizer_.Split(
      text, [&](std::string_view piece) { EncodePiece(piece, state, ids); });
}

void BpeTokenizer::EncodePiece(std::string_view piece, EncodeState& state,
                               std::vector<int32_t>& ids) const {
  if (piece.size() == 1) {
    const int32_t id = byte_token_ids_[static_cast<unsigned char>(piece[0])];
    if (id >= 0) ids.push_back(id);
    return;
  }
  const bool cacheable = piece.size() <= kMaxCachedPieceBytes;
  if (cacheable) {
    const auto cached = state.cache.find(piece);
    if (cached != state.cache.end()) {
      const auto [offset, count] = cached->second;
      ids.insert(ids.end(), state.cached_ids.begin() + offset,
                 state.cached_ids.begin() + offset + count);
      return;
    }
  }
  if (!whole_tokens_.empty()) {
    const auto whole = whole_tokens_.find(std::string(piece));
    if (whole != whole_tokens_.end()) {
      ids.push_back(whole->second);
      return;
    }
  }
  const size_t first = ids.size();
  MergeBytes(piece, state, ids);
  if (cacheable && state.cache.size() < kMaxCachedPieces) {
    const auto offset = static_cast<uint32_t>(state.cached_ids.size());
    state.cached_ids.insert(state.cached_ids.end(), ids.begin() + first,
                            ids.end());
    state.cache.emplace(
        piece, std::pair{offset, static_cast<uint32_t>(ids.size() - first)});
  }
}

void BpeTokenizer::MergeBytes(std::string_view piece, EncodeState& state,
                              std::vector<int32_t>& ids) const {
  using Symbol = EncodeState::Symbol;
  using Candidate = EncodeState::Candidate;
  std::vector<Symbol>& symbols = state.symbols;
  std::vector<Candidate>& candidates = state.candidates;
  symbols.clear();
  candidates.clear();

  for (const char byte : piece) {
    const int32_t id = byte_token_ids_[static_cast<unsigned char>(byte)];
    // A byte without a token is dropped and its neighbours become adjacent,
    // as in tokenizers (its BPE skips characters missing from the vocab).
    if (id < 0) continue;
    const auto index = static_cast<int32_t>(symbols.size());
    symbols.push_back({id, index - 1, index + 1});
  }
  if (symbols.empty()) return;
  symbols.back().next = -1;

  const auto queue_merge = [&](int32_t position) {
    const Symbol& left = symbols[position];
    const Symbol& right = symbols[left.next];
    if (const auto merge = merges_.Find(left.id, right.id)) {
      candidates.push_back(
          {merge->rank, position, left.id, right.id, merge->merged_id});
      std::push_heap(candidates.begin(), candidates.end(),
                     EncodeState::ComesAfter);
    }
  };
  for (int32_t i = 0; i + 1 < static_cast<int32_t>(symbols.size()); ++i) {
    queue_merge(i);
  }

  while (!candidates.empty()) {
    std::pop_heap(candidates.begin(), candidates.end(),
                  EncodeState::ComesAfter);
    const Candidate candidate = candidates.back();
    candidates.pop_back();
    Symbol& left = symbols[candidate.position];
    // A symbol only ever grows to the right, so if both still hold the ids
    // they had when this was queued, neither has changed.
    if (left.id != candidate.left_id || left.next < 0 ||
        symbols[left.next].id != candidate.right_id) {
      continue;
    }
    Symbol& right = symbols[left.next];
    left.id = candidate.merged_id;
    left.next = right.next;
    if (right.next >= 0) symbols[right.next].prev = candidate.position;
    right.id = -1;
    if (left.prev >= 0) queue_merge(left.prev);
    if (left.next >= 0) queue_merge(candidate.position);
  }

  for (int32_t i = 0; i >= 0; i = symbols[i].next) ids.push_back(symbols[i].id);
}

std::string BpeTokenizer::Decode(const std::vector<int32_t>& ids,
                                 bool skip_special_tokens) const {
  std::string bytes;
  for (const int32_t id : ids) {
    if (skip_special_tokens && IsSpecial(id)) continue;
    bytes.append(TokenBytes(id));
  }
  std::string text;
  AppendUtf8Lossy(bytes, &text);
  return text;
}

std::string_view BpeTokenizer::TokenBytes(int32_t id) const {
  if (id < 0 || id >= vocab_size()) return {};
  const uint32_t begin = id == 0 ? 0 : token_ends_[id - 1];
  return std::string_view(token_bytes_).substr(begin, token_ends_[id] - begin);
}

bool BpeTokenizer::IsSpecial(int32_t id) const {
  return id >= 0 && id < vocab_size() && is_special_[id];
}

bool BpeTokenizer::IsStop(int32_t id) const {
  return std::binary_search(stop_ids_.begin(), stop_ids_.end(), id);
}

}  // namespace llm::tokenizer
