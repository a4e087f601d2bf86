// The command-line flags of the runtime's tools, parsed one way for all:
//
//   FlagSet flags("llm_main", kUsage);
//   flags.Value("model").Bool("warmup");
//   if (!flags.Parse(argc, argv, &error)) ...   // error names the flag
//   if (flags.help()) { fputs(flags.usage()); return 0; }
//
// Accepted: --name=value and --name value for value flags; --name,
// --name=true/false (also 1/0, yes/no) for boolean flags. --help and -h are
// recognised anywhere, even beside a bad flag, so help always prints. A tool
// may also take positional arguments (a question, a command) and flags that
// repeat in order (chat messages).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace llm::cli {

class FlagSet {
 public:
  FlagSet(std::string program, std::string usage)
      : program_(std::move(program)), usage_(std::move(usage)) {}

  // Declares a flag that takes a value.
  FlagSet& Value(const std::string& name);
  // Declares an on/off flag.
  FlagSet& Bool(const std::string& name);
  // Declares a value flag that may be given many times; every occurrence of
  // every such flag is kept in order (see ordered()).
  FlagSet& Repeated(const std::string& name);
  // Accepts up to `count` arguments that are not flags, named `what` in the
  // error for one too many (e.g. "a question (quote it)").
  FlagSet& Positionals(size_t count, std::string what);

  // False + error ("unknown flag --x (see --help)", "--model needs a
  // value") on bad input. help() is set either way.
  bool Parse(int argc, char** argv, std::string* error);

  bool help() const { return help_; }
  const std::string& usage() const { return usage_; }
  const std::string& program() const { return program_; }

  const std::vector<std::string>& positionals() const { return positionals_; }
  // (name, value) of each repeated flag given, in command-line order.
  const std::vector<std::pair<std::string, std::string>>& ordered() const {
    return ordered_;
  }

  bool Has(const std::string& name) const { return values_.count(name) > 0; }
  std::string Get(const std::string& name,
                  const std::string& fallback = "") const;
  // A boolean flag's value, or `fallback` when it was not given.
  bool On(const std::string& name, bool fallback = false) const;
  // Sets a value, e.g. a path resolved against the user's directory.
  void Set(const std::string& name, const std::string& value) {
    values_[name] = value;
  }
  // A real number (a temperature), or false + error naming the flag.
  bool Number(const std::string& name, double fallback, double* out,
              std::string* error) const;
  // A whole number in [min, max] (a count, a seed), or false + error naming
  // the flag and the range: "1.5" and out-of-range values are refused, never
  // rounded or wrapped.
  bool Integer(const std::string& name, int64_t fallback, int64_t min,
               int64_t max, int64_t* out, std::string* error) const;

 private:
  enum class Kind { kValue, kBool, kRepeated };
  std::string program_;
  std::string usage_;
  std::map<std::string, Kind> declared_;
  std::map<std::string, std::string> values_;
  std::vector<std::pair<std::string, std::string>> ordered_;
  std::vector<std::string> positionals_;
  size_t max_positionals_ = 0;
  std::string positional_what_;
  bool help_ = false;
};

// Under `bazel run` the process starts in its runfiles tree; the user's own
// relative paths mean their shell's directory, which Bazel passes as
// BUILD_WORKING_DIRECTORY. Inputs that exist as given (bundled runfiles) are
// left alone; outputs are always resolved ("-" means a standard stream).
void ResolveUserPaths(FlagSet* flags, std::initializer_list<const char*> inputs,
                      std::initializer_list<const char*> outputs);

}  // namespace llm::cli
