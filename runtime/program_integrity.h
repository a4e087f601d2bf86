// Is this the program its exporter wrote? ExecuTorch's verification checks the
// flatbuffer's structure, not the weights, so a .pte with flipped bytes in its
// constant data loads and runs, producing whatever the damaged weights
// produce. Every executorch_pte writes a manifest with the program's sha256
// and size beside it; checking them at load turns silent damage (a bad copy to
// the phone, a truncated download, a disk error) into an error.
#pragma once

#include <cstdint>
#include <string>

namespace llm {

// Where a program's bytes are: a whole file, or a range inside one (an
// uncompressed APK asset mapped in place).
struct ProgramFile {
  std::string path;
  uint64_t offset = 0;
  uint64_t length = 0;  // 0 = from offset to the end of the file
};

struct IntegrityOptions {
  // The manifest to check against. Empty: "<name>.manifest.json" beside a
  // "<name>.pte", when that file exists; a program without one is run
  // unchecked (it may come from another build system).
  std::string manifest_path;
  // Skip the check (it reads the whole file once; see docs/runtime.md).
  bool skip = false;
  // Refuse a program that has no manifest instead of running it unchecked.
  bool require_manifest = false;
};

struct IntegrityResult {
  // "verified", "no_manifest" or "skipped".
  std::string status;
  double ms = 0;              // time spent reading and hashing
  std::string sha256;         // the program's, when it was verified
  std::string manifest_path;  // the manifest checked, or looked for
};

// The manifest the exporter would have written beside `pte_path`.
std::string DefaultManifestPath(const std::string& pte_path);

// Checks size, then sha256. False + an error naming both values and the fix
// when the program is not the one the manifest describes, when an explicit
// manifest cannot be read, or when there is none and one is required.
bool CheckProgramIntegrity(const ProgramFile& program,
                           const IntegrityOptions& options,
                           IntegrityResult* result, std::string* error);

}  // namespace llm
