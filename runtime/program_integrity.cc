#include "runtime/program_integrity.h"

#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <iterator>
#include <map>

#include "runtime/sha256.h"

namespace llm {
namespace {

// The manifest's top-level string and number fields ("sha256", "sizeBytes").
// Protobuf's JSON writes int64 as strings; nested objects are skipped, so the
// tokenizer's own "sha256" is never mistaken for the program's.
std::map<std::string, std::string> TopLevelScalars(const std::string& json) {
  std::map<std::string, std::string> fields;
  int depth = 0;
  std::string key;
  bool expecting_value = false;
  for (size_t i = 0; i < json.size(); ++i) {
    const char c = json[i];
    if (c == '{' || c == '[') {
      ++depth;
      expecting_value = false;
    } else if (c == '}' || c == ']') {
      --depth;
    } else if (c == ':') {
      expecting_value = depth == 1;
    } else if (c == ',') {
      expecting_value = false;
    } else if (c == '"') {
      std::string text;
      for (++i; i < json.size() && json[i] != '"'; ++i) {
        if (json[i] == '\\' && i + 1 < json.size()) ++i;
        text += json[i];
      }
      if (depth != 1) continue;
      if (expecting_value) {
        fields[key] = text;
        expecting_value = false;
      } else {
        key = text;
      }
    } else if (expecting_value && (c == '-' || (c >= '0' && c <= '9'))) {
      std::string number;
      while (i < json.size() &&
             (json[i] == '-' || (json[i] >= '0' && json[i] <= '9'))) {
        number += json[i++];
      }
      --i;
      fields[key] = number;
      expecting_value = false;
    }
  }
  return fields;
}

bool FileExists(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0;
}

}  // namespace

std::string DefaultManifestPath(const std::string& pte_path) {
  const std::string suffix = ".pte";
  std::string stem = pte_path;
  if (stem.size() > suffix.size() &&
      stem.compare(stem.size() - suffix.size(), suffix.size(), suffix) == 0) {
    stem.resize(stem.size() - suffix.size());
  }
  return stem + ".manifest.json";
}

bool CheckProgramIntegrity(const ProgramFile& program,
                           const IntegrityOptions& options,
                           IntegrityResult* result, std::string* error) {
  const auto start = std::chrono::steady_clock::now();
  *result = IntegrityResult();
  if (options.skip) {
    result->status = "skipped";
    return true;
  }
  const bool explicit_manifest = !options.manifest_path.empty();
  const std::string manifest = explicit_manifest
                                   ? options.manifest_path
                                   : DefaultManifestPath(program.path);
  result->manifest_path = manifest;
  if (!explicit_manifest && !FileExists(manifest)) {
    if (options.require_manifest) {
      *error = program.path + " has no manifest (looked for " + manifest +
               "): copy the .manifest.json built with it alongside, name it "
               "with --manifest, or drop --require_manifest";
      return false;
    }
    result->status = "no_manifest";
    return true;
  }
  std::ifstream in(manifest, std::ios::binary);
  if (!in) {
    *error = "cannot read the manifest " + manifest +
             ": pass the .manifest.json built with the program, or "
             "--skip_integrity_check";
    return false;
  }
  const std::string json((std::istreambuf_iterator<char>(in)), {});
  const auto fields = TopLevelScalars(json);
  const auto sha = fields.find("sha256");
  if (sha == fields.end() || sha->second.size() != 64) {
    *error = manifest +
             " has no program sha256: it is not a manifest written by "
             "executorch_pte; rebuild the model or pass --skip_integrity_check";
    return false;
  }

  struct stat info {};
  if (stat(program.path.c_str(), &info) != 0) {
    *error = "cannot open " + program.path + "; check the path";
    return false;
  }
  const uint64_t file_size = static_cast<uint64_t>(info.st_size);
  const uint64_t length = program.length > 0 || program.offset >= file_size
                              ? program.length
                              : file_size - program.offset;
  const auto size = fields.find("sizeBytes");
  if (size != fields.end() && size->second != std::to_string(length)) {
    *error = program.path + " is " + std::to_string(length) +
             " bytes but its manifest " + manifest + " says " + size->second +
             ": the file is truncated or is another build's; copy it again "
             "(or rebuild it) together with its manifest";
    return false;
  }
  const std::string actual =
      Sha256FileRange(program.path, program.offset, length);
  if (actual != sha->second) {
    *error = program.path + " is damaged or is not the program its manifest " +
             manifest + " describes: its sha256 is " +
             (actual.empty() ? std::string("unreadable") : actual) +
             ", the manifest's is " + sha->second +
             "; copy the .pte again (or rebuild it) together with its "
             "manifest";
    return false;
  }
  result->status = "verified";
  result->sha256 = actual;
  result->ms = std::chrono::duration<double, std::milli>(
                   std::chrono::steady_clock::now() - start)
                   .count();
  return true;
}

}  // namespace llm
