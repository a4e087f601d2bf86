#include "rag/runtime/flat_index.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace llm::rag {
namespace {

constexpr char kMagic[8] = {'L', 'L', 'M', 'R', 'A', 'G', 'I', 'X'};
constexpr uint32_t kVersion = 1;
constexpr size_t kHeaderSize = 128;
constexpr size_t kChunkRecordSize = 32;
constexpr size_t kDocumentRecordSize = 48;
constexpr size_t kAlignment = 64;

// The file is little-endian, as are every platform this runtime targets
// (x86-64, arm64); memcpy keeps unaligned reads defined.
template <typename T>
T Read(const uint8_t* at) {
  T value;
  std::memcpy(&value, at, sizeof(T));
  return value;
}

size_t ElementSize(VectorType type) {
  switch (type) {
    case VectorType::kFp32:
      return 4;
    case VectorType::kFp16:
      return 2;
    case VectorType::kInt8:
      return 1;
  }
  return 0;
}

std::string Hex(const uint8_t* bytes, size_t size) {
  static const char kDigits[] = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < size; ++i) {
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 15];
  }
  return out;
}

// True if [offset, offset + size) lies inside a file of `file_size` bytes.
bool Inside(uint64_t offset, uint64_t size, uint64_t file_size) {
  return offset <= file_size && size <= file_size - offset;
}

}  // namespace

const char* VectorTypeName(VectorType type) {
  switch (type) {
    case VectorType::kFp32:
      return "fp32";
    case VectorType::kFp16:
      return "fp16";
    case VectorType::kInt8:
      return "int8";
  }
  return "unknown";
}

std::unique_ptr<FlatIndex> FlatIndex::Open(const std::string& path,
                                           std::string* error) {
  const std::string rebuild =
      "; rebuild it with its rag_index target (bazel build //rag:<index>)";
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = "cannot open the index " + path + ": " + std::strerror(errno) +
             " (build one with a rag_index target and pass its .flat file)";
    return nullptr;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_size < static_cast<off_t>(kHeaderSize)) {
    ::close(fd);
    *error = path + " is too small to be a flat index" + rebuild;
    return nullptr;
  }
  const size_t size = static_cast<size_t>(st.st_size);
  void* mapping = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (mapping == MAP_FAILED) {
    *error = "cannot mmap " + path + ": " + std::strerror(errno);
    return nullptr;
  }
  auto index = std::make_unique<FlatIndex>(Key());
  index->path_ = path;
  index->mapping_ = mapping;
  index->mapping_size_ = size;
  const auto* base = static_cast<const uint8_t*>(mapping);

  if (std::memcmp(base, kMagic, sizeof(kMagic)) != 0) {
    *error = path + " is not a flat index (bad magic)" + rebuild;
    return nullptr;
  }
  const uint32_t version = Read<uint32_t>(base + 8);
  if (version != kVersion) {
    *error = path + " is flat index version " + std::to_string(version) +
             ", this runtime reads version " + std::to_string(kVersion) +
             rebuild;
    return nullptr;
  }
  index->dim_ = Read<uint32_t>(base + 12);
  index->count_ = Read<uint32_t>(base + 16);
  index->document_count_ = Read<uint32_t>(base + 20);
  const uint32_t type = Read<uint32_t>(base + 24);
  index->chunk_tokens_ = Read<uint32_t>(base + 28);
  index->embedder_sha256_ = Hex(base + 40, 32);
  const uint64_t vectors_at = Read<uint64_t>(base + 72);
  const uint64_t scales_at = Read<uint64_t>(base + 80);
  const uint64_t chunks_at = Read<uint64_t>(base + 88);
  const uint64_t documents_at = Read<uint64_t>(base + 96);
  const uint64_t strings_at = Read<uint64_t>(base + 104);
  const uint64_t strings_size = Read<uint64_t>(base + 112);
  const uint64_t file_size = Read<uint64_t>(base + 120);

  const auto corrupt = [&](const std::string& what) {
    *error = path + " is corrupt or truncated (" + what + ")" + rebuild;
    return nullptr;
  };
  if (file_size != size) return corrupt("file size");
  if (type < 1 || type > 3) return corrupt("vector type");
  index->type_ = static_cast<VectorType>(type);
  if (index->dim_ == 0 || index->count_ == 0) return corrupt("empty");
  const uint64_t vector_bytes = static_cast<uint64_t>(index->count_) *
                                index->dim_ * ElementSize(index->type_);
  const bool int8 = index->type_ == VectorType::kInt8;
  if (vectors_at % kAlignment != 0 || !Inside(vectors_at, vector_bytes, size) ||
      (int8 && (scales_at % kAlignment != 0 ||
                !Inside(scales_at, uint64_t{4} * index->count_, size))) ||
      !Inside(chunks_at, kChunkRecordSize * index->count_, size) ||
      !Inside(documents_at, kDocumentRecordSize * index->document_count_,
              size) ||
      !Inside(strings_at, strings_size, size)) {
    return corrupt("section bounds");
  }
  index->vectors_ = base + vectors_at;
  index->scales_ =
      int8 ? reinterpret_cast<const float*>(base + scales_at) : nullptr;
  index->chunks_ = base + chunks_at;
  index->documents_ = base + documents_at;
  index->strings_ = reinterpret_cast<const char*>(base + strings_at);

  for (uint32_t d = 0; d < index->document_count_; ++d) {
    const uint8_t* record = index->documents_ + d * kDocumentRecordSize;
    if (!Inside(Read<uint32_t>(record), Read<uint32_t>(record + 4),
                strings_size)) {
      return corrupt("document name");
    }
  }
  for (uint32_t i = 0; i < index->count_; ++i) {
    const uint8_t* record = index->chunks_ + i * kChunkRecordSize;
    if (Read<uint32_t>(record) >= index->document_count_ ||
        Read<uint64_t>(record + 16) < Read<uint64_t>(record + 8) ||
        !Inside(Read<uint32_t>(record + 24), Read<uint32_t>(record + 28),
                strings_size)) {
      return corrupt("chunk " + std::to_string(i));
    }
  }
  return index;
}

FlatIndex::~FlatIndex() {
  if (mapping_ != nullptr) ::munmap(mapping_, mapping_size_);
}

ChunkInfo FlatIndex::chunk(uint32_t i) const {
  const uint8_t* record = chunks_ + static_cast<size_t>(i) * kChunkRecordSize;
  ChunkInfo info;
  info.document = Read<uint32_t>(record);
  info.tokens = Read<uint32_t>(record + 4);
  info.byte_start = Read<uint64_t>(record + 8);
  info.byte_end = Read<uint64_t>(record + 16);
  info.text = std::string_view(strings_ + Read<uint32_t>(record + 24),
                               Read<uint32_t>(record + 28));
  return info;
}

std::string_view FlatIndex::document_name(uint32_t i) const {
  const uint8_t* record =
      documents_ + static_cast<size_t>(i) * kDocumentRecordSize;
  return std::string_view(strings_ + Read<uint32_t>(record),
                          Read<uint32_t>(record + 4));
}

}  // namespace llm::rag
