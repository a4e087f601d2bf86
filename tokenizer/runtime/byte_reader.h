// The framing both compiled tokenizer files share (BPE .tok, WordPiece .wpt):
// little-endian fields read from an untrusted byte range, and the CRC-32 that
// guards each file's payload.

#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace llm::tokenizer {

// zlib's CRC-32 (reflected, polynomial 0xEDB88320), what Python's zlib.crc32
// computes: the compilers in tokenizer/compiler write it.
uint32_t Crc32(std::string_view data);

// Little-endian fields from a byte range. A read past the end fails and keeps
// failing, so callers check ok() once after a group of reads.
class ByteReader {
 public:
  explicit ByteReader(std::string_view data) : data_(data) {}

  uint32_t U32() {
    if (!Has(4)) return 0;
    const auto* p = reinterpret_cast<const unsigned char*>(data_.data());
    const uint32_t value =
        p[0] | (p[1] << 8) | (p[2] << 16) | (static_cast<uint32_t>(p[3]) << 24);
    data_.remove_prefix(4);
    return value;
  }
  int32_t I32() {
    const uint32_t bits = U32();
    int32_t value;
    std::memcpy(&value, &bits, sizeof(value));
    return value;
  }
  std::string_view Bytes(uint64_t count) {
    if (!Has(count)) return {};
    std::string_view bytes = data_.substr(0, count);
    data_.remove_prefix(count);
    return bytes;
  }
  // Whether `count` items of `item_size` bytes can still be read: checked
  // before sizing a vector by a count read from the file.
  bool CanRead(uint64_t count, uint64_t item_size) const {
    return ok_ && count <= data_.size() / item_size;
  }

  bool ok() const { return ok_; }
  bool at_end() const { return data_.empty(); }

 private:
  bool Has(uint64_t count) {
    if (!ok_ || count > data_.size()) ok_ = false;
    return ok_;
  }

  std::string_view data_;
  bool ok_ = true;
};

// Walks a payload made of sections, each a 4-byte tag, a u32 size and a body,
// in an order the file format fixes. The first error wins; messages name the
// section they happened in.
class SectionReader {
 public:
  explicit SectionReader(std::string_view payload) : payload_(payload) {}

  // Reads the next section, which must be `tag`, and calls parse(body) with a
  // reader over its body, which must be consumed exactly.
  template <typename Parse>
  bool Next(std::string_view tag, Parse&& parse) {
    const std::string_view found_tag = payload_.Bytes(4);
    const uint32_t size = payload_.U32();
    const std::string_view body = payload_.Bytes(size);
    if (!payload_.ok()) {
      return Fail("truncated before the end of section " + std::string(tag));
    }
    if (found_tag != tag) {
      return Fail("expected section " + std::string(tag) + ", found '" +
                  std::string(found_tag) + "'");
    }
    section_ = tag;
    ByteReader reader(body);
    const bool parsed = parse(reader);
    // A body that ran out of bytes may stop without a message of its own.
    if (!reader.ok()) return Fail(Where() + "is shorter than its contents");
    if (!parsed) return false;
    if (!reader.at_end()) return Fail(Where() + "has trailing bytes");
    return true;
  }

  // After the last section: nothing may follow.
  bool Finish() {
    return payload_.at_end() || Fail("unexpected bytes after the last section");
  }

  // Records `message` unless an earlier error was recorded; false.
  bool Fail(const std::string& message) {
    if (error_.empty()) error_ = message;
    return false;
  }
  // "section VOCB ", for messages about the current section.
  std::string Where() const { return "section " + std::string(section_) + " "; }
  const std::string& error() const { return error_; }

 private:
  ByteReader payload_;
  std::string_view section_;
  std::string error_;
};

// How a compiled file is framed: an 8-byte magic, then u32 version, u32
// payload size and u32 CRC-32 of the payload, then the payload.
struct FileFrame {
  std::string_view magic;     // e.g. "LLMBPETK"
  uint32_t version;           // the one this runtime reads
  std::string_view kind;      // names the file in errors, e.g. "tokenizer"
  std::string_view no_magic;  // the error when the magic is missing
};

// The payload of `bytes`, framed as `frame` says. A missing magic, another
// version, a size that disagrees with the header or a bad CRC-32 gives
// nullopt, with *error saying which.
std::optional<std::string_view> ReadFrame(std::string_view bytes,
                                          const FileFrame& frame,
                                          std::string* error);

}  // namespace llm::tokenizer
