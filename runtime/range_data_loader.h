// A DataLoader over a byte range of another loader's data: lets the runtime
// map a program stored inside a bigger file in place, e.g. an uncompressed
// asset inside the APK (AssetFileDescriptor's offset and length), instead of
// copying it out first.
#pragma once

#include <executorch/runtime/core/data_loader.h>

#include <cstddef>

namespace llm {

class RangeDataLoader final : public executorch::runtime::DataLoader {
 public:
  // `inner` must outlive this loader.
  RangeDataLoader(const executorch::runtime::DataLoader* inner, size_t offset,
                  size_t length)
      : inner_(inner), offset_(offset), length_(length) {}

  executorch::runtime::Result<executorch::runtime::FreeableBuffer> load(
      size_t offset, size_t size,
      const SegmentInfo& segment_info) const override {
    if (offset > length_ || size > length_ - offset) {
      return executorch::runtime::Error::InvalidArgument;
    }
    return inner_->load(offset_ + offset, size, segment_info);
  }

  executorch::runtime::Error load_into(size_t offset, size_t size,
                                       const SegmentInfo& segment_info,
                                       void* buffer) const override {
    if (offset > length_ || size > length_ - offset) {
      return executorch::runtime::Error::InvalidArgument;
    }
    return inner_->load_into(offset_ + offset, size, segment_info, buffer);
  }

  executorch::runtime::Result<size_t> size() const override { return length_; }

 private:
  const executorch::runtime::DataLoader* inner_;
  size_t offset_;
  size_t length_;
};

}  // namespace llm
