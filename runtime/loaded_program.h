// Opening a .pte, one way for every program the runtime runs (an LLM or a
// sentence embedder): the check against its manifest, the mmap (a whole file,
// or a range inside a larger one), and ExecuTorch's structural verification,
// each failure an error that names the file and the fix. LlmProgram and
// rag::Embedder then plan their methods' memory on top of it.
#pragma once

#include <executorch/extension/data_loader/mmap_data_loader.h>
#include <executorch/runtime/core/error.h>
#include <executorch/runtime/executor/program.h>

#include <memory>
#include <optional>
#include <string>

#include "runtime/program_integrity.h"
#include "runtime/range_data_loader.h"

namespace llm {

struct LoadOptions {
  ProgramFile file;
  IntegrityOptions integrity;
  // Lock the mapped pages in RAM.
  bool mlock = false;
  // Offered in the "cannot open" error as what a right path looks like, by
  // a tool that knows where its programs are built (none by default).
  std::string example_path;
};

class LoadedProgram {
 public:
  // Null + error on failure.
  static std::unique_ptr<LoadedProgram> Open(const LoadOptions& options,
                                             std::string* error);

  executorch::runtime::Program& program() { return *program_; }
  const IntegrityResult& integrity() const { return integrity_; }
  // The program's sha256: the one the integrity check computed, else read
  // now (the whole program, so call it once).
  std::string Sha256() const;

  // Use Open(); public only so std::make_unique can reach it. The program
  // points at its loader, so this object never moves once opened.
  struct Key {
   private:
    friend class LoadedProgram;
    Key() = default;
  };
  explicit LoadedProgram(Key) {}
  LoadedProgram(const LoadedProgram&) = delete;
  LoadedProgram& operator=(const LoadedProgram&) = delete;

 private:
  std::optional<executorch::extension::MmapDataLoader> loader_;
  std::optional<RangeDataLoader> range_loader_;
  std::optional<executorch::runtime::Program> program_;
  IntegrityResult integrity_;
  ProgramFile file_;
};

// "ExecuTorch error 0x12: <the first error ExecuTorch logged>".
std::string DescribeExecuTorchError(executorch::runtime::Error error);

}  // namespace llm
