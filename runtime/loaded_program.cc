#include "runtime/loaded_program.h"

#include <cstdint>
#include <cstdio>
#include <utility>

#include "runtime/runtime_log.h"
#include "runtime/sha256.h"

namespace llm {
namespace {

using executorch::extension::MmapDataLoader;
using executorch::runtime::Program;

// mmap keeps a byte's offset within its page, so a program inside a larger
// file is only as aligned as its offset, and ExecuTorch needs 16.
constexpr uint64_t kProgramAlignment = 16;

}  // namespace

std::string DescribeExecuTorchError(executorch::runtime::Error error) {
  char code[32];
  std::snprintf(code, sizeof(code), "ExecuTorch error 0x%x",
                static_cast<unsigned>(error));
  std::string text = code;
  std::string detail = FirstRuntimeError();
  while (!detail.empty() && (detail.back() == '.' || detail.back() == ' ')) {
    detail.pop_back();
  }
  if (!detail.empty()) text += ": " + detail;
  return text;
}

std::unique_ptr<LoadedProgram> LoadedProgram::Open(const LoadOptions& options,
                                                   std::string* error) {
  ClearRuntimeError();
  auto self = std::make_unique<LoadedProgram>(Key());
  const ProgramFile& file = options.file;

  // Before mapping: a damaged file must fail here, not produce wrong output.
  if (!CheckProgramIntegrity(file, options.integrity, &self->integrity_,
                             error)) {
    return nullptr;
  }
  // Unchecked is allowed (the program may come from another build system),
  // but never silent.
  if (self->integrity_.status == "no_manifest") {
    std::fprintf(stderr,
                 "note: %s has no manifest (%s), so it runs unverified; "
                 "--require_manifest refuses such a program\n",
                 file.path.c_str(), self->integrity_.manifest_path.c_str());
  }

  auto loader = MmapDataLoader::from(
      file.path.c_str(), options.mlock ? MmapDataLoader::MlockConfig::UseMlock
                                       : MmapDataLoader::MlockConfig::NoMlock);
  if (!loader.ok()) {
    *error =
        "cannot open " + file.path + " (" +
        DescribeExecuTorchError(loader.error()) + "); check the path" +
        (options.example_path.empty() ? "" : ", e.g. " + options.example_path);
    return nullptr;
  }
  self->loader_.emplace(std::move(loader.get()));
  executorch::runtime::DataLoader* data = &*self->loader_;
  if (file.offset > 0 || file.length > 0) {
    if (file.offset % kProgramAlignment != 0) {
      *error = "the program starts at offset " + std::to_string(file.offset) +
               " in " + file.path + ", which is not a multiple of " +
               std::to_string(kProgramAlignment) +
               " as ExecuTorch requires; align the container's entries (e.g. "
               "zipalign 16) or copy the program out to its own file";
      return nullptr;
    }
    const size_t file_size = self->loader_->size().get();
    if (file.offset >= file_size || file.length > file_size - file.offset) {
      *error = "the program's range (offset " + std::to_string(file.offset) +
               ", length " + std::to_string(file.length) + ") lies outside " +
               file.path + " (" + std::to_string(file_size) +
               " bytes); pass the asset's own offset and length";
      return nullptr;
    }
    const size_t length =
        file.length > 0 ? file.length : file_size - file.offset;
    self->range_loader_.emplace(data, file.offset, length);
    data = &*self->range_loader_;
  }

  // InternalConsistency verifies the flatbuffer, so a truncated or corrupt
  // file is an error here instead of a crash later.
  auto program =
      Program::load(data, Program::Verification::InternalConsistency);
  if (!program.ok()) {
    *error = file.path + " is not a valid ExecuTorch program (" +
             DescribeExecuTorchError(program.error()) +
             "); it may be truncated or corrupt: rebuild it with bazel build";
    return nullptr;
  }
  self->program_.emplace(std::move(program.get()));
  self->file_ = file;
  return self;
}

std::string LoadedProgram::Sha256() const {
  if (!integrity_.sha256.empty()) return integrity_.sha256;
  return Sha256FileRange(file_.path, file_.offset,
                         file_.length > 0 ? file_.length : UINT64_MAX);
}

}  // namespace llm
