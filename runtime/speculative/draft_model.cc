#include "runtime/speculative/draft_model.h"

#include <algorithm>

namespace llm {
namespace {

int64_t Argmax(const float* row, int64_t size) {
  return std::max_element(row, row + size) - row;
}

}  // namespace

DraftModelDrafter::DraftModelDrafter(LogitsModel* model) : model_(model) {
  cached_.reserve(static_cast<size_t>(model_->limits().max_context_len));
}

const float* DraftModelDrafter::Feed(const int64_t* tokens, int64_t count,
                                     int64_t start) {
  const float* logits = nullptr;
  const int64_t chunk_len = model_->limits().max_seq_len;
  for (int64_t done = 0; done < count; done += chunk_len) {
    const int64_t chunk = std::min(chunk_len, count - done);
    logits = model_->Forward(tokens + done, chunk, start + done, &error_);
    ++calls_;
    if (logits == nullptr) return nullptr;
  }
  return logits;
}

const float* DraftModelDrafter::CatchUp(const int64_t* history, int64_t size) {
  // Cache rows past the shared prefix hold a rejected draft or an older
  // turn: attention never reads past the position fed, so overwriting them
  // is the rollback. The last token is always fed again, since its logits
  // are the ones a draft starts from.
  const auto shared =
      std::mismatch(cached_.begin(), cached_.end(), history, history + size);
  const int64_t keep =
      std::min<int64_t>(shared.first - cached_.begin(), size - 1);
  cached_.resize(static_cast<size_t>(keep));
  const float* logits = Feed(history + keep, size - keep, keep);
  if (logits == nullptr) return nullptr;
  cached_.insert(cached_.end(), history + keep, history + size);
  return logits;
}

bool DraftModelDrafter::Prefill(const int64_t* history, int64_t size) {
  if (!error_.empty()) return false;
  if (size < 1 || size > model_->limits().max_context_len) return true;
  return CatchUp(history, size) != nullptr;
}

int64_t DraftModelDrafter::Propose(const int64_t* history, int64_t size,
                                   int64_t max_tokens, int64_t* draft) {
  const ProgramLimits& limits = model_->limits();
  // The history and each draft token but the last must fit the draft's cache.
  max_tokens = std::min(max_tokens, limits.max_context_len - size + 1);
  if (!error_.empty() || max_tokens < 1 || size < 1) return 0;
  const float* logits = CatchUp(history, size);
  if (logits == nullptr) return 0;
  for (int64_t i = 0; i < max_tokens; ++i) {
    draft[i] = Argmax(logits, limits.vocab_size);
    if (i + 1 == max_tokens) break;
    logits = Feed(draft + i, 1, size + i);
    if (logits == nullptr) return 0;
    cached_.push_back(draft[i]);
  }
  return max_tokens;
}

}  // namespace llm
