// SHA-256 of a file: the stats JSON's model identity (so a figure can be tied
// to the exact .pte that produced it) and the load-time integrity check.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace llm {

// Lowercase hex digest, or "" if the file cannot be read.
std::string Sha256File(const std::string& path);

// Digest of a buffer.
std::string Sha256Bytes(const uint8_t* data, size_t size);

// Digest of `length` bytes from `offset` ("" if the file is shorter). A length
// of UINT64_MAX means "to the end".
std::string Sha256FileRange(const std::string& path, uint64_t offset,
                            uint64_t length);

}  // namespace llm
