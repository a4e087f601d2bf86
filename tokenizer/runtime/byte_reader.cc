#include "tokenizer/runtime/byte_reader.h"

#include <array>

namespace llm::tokenizer {

uint32_t Crc32(std::string_view data) {
  static const std::array<uint32_t, 256> kTable = [] {
    std::array<uint32_t, 256> table{};
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int bit = 0; bit < 8; ++bit) {
        c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      }
      table[i] = c;
    }
    return table;
  }();
  uint32_t crc = 0xFFFFFFFFu;
  for (const char byte : data) {
    crc = kTable[(crc ^ static_cast<unsigned char>(byte)) & 0xFF] ^ (crc >> 8);
  }
  return crc ^ 0xFFFFFFFFu;
}

std::optional<std::string_view> ReadFrame(std::string_view bytes,
                                          const FileFrame& frame,
                                          std::string* error) {
  constexpr size_t kHeaderSize = 8 + 3 * 4;
  if (bytes.size() < kHeaderSize ||
      bytes.substr(0, frame.magic.size()) != frame.magic) {
    *error = std::string(frame.no_magic);
    return std::nullopt;
  }
  const std::string kind(frame.kind);
  ByteReader header(
      bytes.substr(frame.magic.size(), kHeaderSize - frame.magic.size()));
  const uint32_t version = header.U32();
  const uint32_t payload_size = header.U32();
  const uint32_t payload_crc32 = header.U32();
  if (version != frame.version) {
    *error = kind + " file version " + std::to_string(version) +
             " is not supported (this runtime reads version " +
             std::to_string(frame.version) + "): recompile it";
    return std::nullopt;
  }
  const std::string_view payload = bytes.substr(kHeaderSize);
  if (payload.size() != payload_size) {
    *error = kind + " file is " + std::to_string(bytes.size()) +
             " bytes, its header says " +
             std::to_string(kHeaderSize + uint64_t{payload_size}) +
             " (truncated or padded)";
    return std::nullopt;
  }
  if (Crc32(payload) != payload_crc32) {
    *error = kind + " file is corrupt (CRC-32 mismatch)";
    return std::nullopt;
  }
  return payload;
}

}  // namespace llm::tokenizer
