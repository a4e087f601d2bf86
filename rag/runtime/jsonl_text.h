// Reads the "text" field of one JSON Lines record ({"text": "...", ...}),
// the input format of //rag/runtime:embed.
//
// A small, strict JSON reader: the line must be one JSON object; other fields
// may hold any JSON value and are skipped; string escapes, \uXXXX and
// surrogate pairs included, are decoded to UTF-8.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace llm::rag {

// The value of the object's "text" string field. Returns nullopt and sets
// *error (what is wrong, at which byte) if the line is not a JSON object or
// has no string "text".
std::optional<std::string> ReadTextField(std::string_view line,
                                         std::string* error);

}  // namespace llm::rag
