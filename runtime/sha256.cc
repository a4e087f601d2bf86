#include "runtime/sha256.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <vector>

#include "runtime/sha256_blocks.h"

namespace llm {
namespace {

class Sha256 {
 public:
  void Update(const uint8_t* data, size_t size) {
    length_ += size;
    if (used_ > 0) {
      const size_t take = std::min(size, block_.size() - used_);
      std::copy(data, data + take, block_.begin() + used_);
      used_ += take;
      data += take;
      size -= take;
      if (used_ < block_.size()) return;
      blocks_(state_.data(), block_.data(), 1);
      used_ = 0;
    }
    // Whole blocks straight from the caller's buffer: the fast path for a
    // file read a megabyte at a time.
    blocks_(state_.data(), data, size / 64);
    const size_t rest = size % 64;
    std::copy(data + size - rest, data + size, block_.begin());
    used_ = rest;
  }

  std::string HexDigest() {
    const uint64_t bits = length_ * 8;
    const uint8_t pad = 0x80;
    Update(&pad, 1);
    const uint8_t zero = 0;
    while (used_ != 56) Update(&zero, 1);
    for (int i = 7; i >= 0; --i) {
      const uint8_t byte = static_cast<uint8_t>(bits >> (i * 8));
      Update(&byte, 1);
    }
    std::string hex;
    char digits[9];
    for (uint32_t word : state_) {
      std::snprintf(digits, sizeof(digits), "%08x", word);
      hex += digits;
    }
    return hex;
  }

 private:
  Sha256Blocks blocks_ = BestSha256Blocks();
  std::array<uint32_t, 8> state_ = {0x6a09e667, 0xbb67ae85, 0x3c6ef372,
                                    0xa54ff53a, 0x510e527f, 0x9b05688c,
                                    0x1f83d9ab, 0x5be0cd19};
  std::array<uint8_t, 64> block_{};
  size_t used_ = 0;
  uint64_t length_ = 0;
};

}  // namespace

std::string Sha256Bytes(const uint8_t* data, size_t size) {
  Sha256 hash;
  hash.Update(data, size);
  return hash.HexDigest();
}

std::string Sha256File(const std::string& path) {
  return Sha256FileRange(path, 0, UINT64_MAX);
}

std::string Sha256FileRange(const std::string& path, uint64_t offset,
                            uint64_t length) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  in.seekg(static_cast<std::streamoff>(offset));
  if (!in) return "";
  Sha256 hash;
  std::vector<char> buffer(size_t{1} << 20);
  uint64_t left = length;
  while (in && left > 0) {
    in.read(buffer.data(), static_cast<std::streamsize>(
                               std::min<uint64_t>(buffer.size(), left)));
    const auto got = static_cast<uint64_t>(in.gcount());
    hash.Update(reinterpret_cast<const uint8_t*>(buffer.data()),
                static_cast<size_t>(got));
    left -= got;
  }
  if (left > 0 && length != UINT64_MAX) return "";  // the file is shorter
  return hash.HexDigest();
}

}  // namespace llm
