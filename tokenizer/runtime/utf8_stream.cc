#include "tokenizer/runtime/utf8_stream.h"

namespace llm {
namespace {

// Length a sequence starting with `lead` should have; 1 for stray bytes so
// invalid input flows through instead of being held forever.
size_t SequenceLength(unsigned char lead) {
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  if (lead >= 0xE0) return lead <= 0xEF ? 3 : 1;
  if (lead >= 0xC2) return 2;
  return 1;
}

}  // namespace

std::string Utf8Stream::Push(std::string_view bytes) {
  pending_.append(bytes.data(), bytes.size());
  // Find the start of the last character and check whether it is complete.
  size_t start = pending_.size();
  size_t continuation = 0;
  while (start > 0 && continuation < 3 &&
         (static_cast<unsigned char>(pending_[start - 1]) & 0xC0) == 0x80) {
    --start;
    ++continuation;
  }
  size_t ready = pending_.size();
  if (start > 0) {
    const size_t lead = start - 1;
    const size_t need =
        SequenceLength(static_cast<unsigned char>(pending_[lead]));
    if (need > 1 && pending_.size() - lead < need) ready = lead;
  }
  std::string out = pending_.substr(0, ready);
  pending_.erase(0, ready);
  return out;
}

std::string Utf8Stream::Flush() {
  std::string out;
  out.swap(pending_);
  return out;
}

}  // namespace llm
