// The device's retrieval index: the flat file a rag_index target writes
// (format in rag/index/flat_index_format.py), mmap'd read-only and used in
// place.
//
// Open() checks everything it will later index into (magic, version, section
// bounds, every chunk's text and document), so a truncated, corrupt or
// foreign file is an error naming the file, and accessors need no checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace llm::rag {

enum class VectorType : uint32_t { kFp32 = 1, kFp16 = 2, kInt8 = 3 };

const char* VectorTypeName(VectorType type);

struct ChunkInfo {
  uint32_t document = 0;
  uint32_t tokens = 0;      // the embedder's WordPiece tokens
  uint64_t byte_start = 0;  // in the source document
  uint64_t byte_end = 0;
  std::string_view text;  // == document bytes [byte_start, byte_end)
};

class FlatIndex {
 public:
  // Maps and validates `path`; null + error on failure.
  static std::unique_ptr<FlatIndex> Open(const std::string& path,
                                         std::string* error);
  ~FlatIndex();
  FlatIndex(const FlatIndex&) = delete;
  FlatIndex& operator=(const FlatIndex&) = delete;

  const std::string& path() const { return path_; }
  uint32_t dim() const { return dim_; }
  uint32_t size() const { return count_; }
  VectorType vector_type() const { return type_; }
  // Lowercase hex sha256 of the embedder .pte that made the vectors.
  const std::string& embedder_sha256() const { return embedder_sha256_; }
  uint32_t chunk_tokens() const { return chunk_tokens_; }

  ChunkInfo chunk(uint32_t i) const;
  uint32_t document_count() const { return document_count_; }
  std::string_view document_name(uint32_t i) const;

  // Row-major [size()][dim()] of the vector type; scales() is [size()] for
  // kInt8 (vector = scale * q) and null otherwise.
  const void* vectors() const { return vectors_; }
  const float* scales() const { return scales_; }

  struct Key {
   private:
    friend class FlatIndex;
    Key() = default;
  };
  explicit FlatIndex(Key) {}

 private:
  std::string path_;
  void* mapping_ = nullptr;
  size_t mapping_size_ = 0;
  uint32_t dim_ = 0;
  uint32_t count_ = 0;
  uint32_t document_count_ = 0;
  uint32_t chunk_tokens_ = 0;
  VectorType type_ = VectorType::kFp32;
  std::string embedder_sha256_;
  const void* vectors_ = nullptr;
  const float* scales_ = nullptr;
  const uint8_t* chunks_ = nullptr;
  const uint8_t* documents_ = nullptr;
  const char* strings_ = nullptr;
};

}  // namespace llm::rag
