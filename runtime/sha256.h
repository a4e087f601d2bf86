// SHA-256 of a file, for the stats JSON's model identity (so a figure can be
// tied to the exact .pte that produced it).
#pragma once

#include <string>

namespace llm {

// Lowercase hex digest, or "" if the file cannot be read.
std::string Sha256File(const std::string& path);

}  // namespace llm
