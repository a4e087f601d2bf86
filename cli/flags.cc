#include "cli/flags.h"

#include <cerrno>
#include <cstdlib>
#include <fstream>

namespace llm::cli {
namespace {

bool ParseBool(const std::string& text, bool* out) {
  if (text == "true" || text == "1" || text == "yes") {
    *out = true;
  } else if (text == "false" || text == "0" || text == "no") {
    *out = false;
  } else {
    return false;
  }
  return true;
}

}  // namespace

FlagSet& FlagSet::Value(const std::string& name) {
  declared_[name] = Kind::kValue;
  return *this;
}

FlagSet& FlagSet::Bool(const std::string& name) {
  declared_[name] = Kind::kBool;
  return *this;
}

FlagSet& FlagSet::Repeated(const std::string& name) {
  declared_[name] = Kind::kRepeated;
  return *this;
}

FlagSet& FlagSet::Positionals(size_t count, std::string what) {
  max_positionals_ = count;
  positional_what_ = std::move(what);
  return *this;
}

bool FlagSet::Parse(int argc, char** argv, std::string* error) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h" || arg == "--help=true") help_ = true;
  }
  if (help_) return true;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("-", 0) != 0 && positionals_.size() < max_positionals_) {
      positionals_.push_back(arg);
      continue;
    }
    if (arg.rfind("--", 0) != 0 || arg.size() == 2) {
      *error =
          max_positionals_ > 0 && arg.rfind("-", 0) != 0
              ? "give one " + positional_what_ + ": unexpected '" + arg + "'"
              : "unexpected argument '" + arg +
                    "' (flags look like --name=value or --name value)";
      return false;
    }
    arg = arg.substr(2);
    const size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    const auto kind = declared_.find(name);
    if (kind == declared_.end()) {
      *error = "unknown flag --" + name + " (see " + program_ + " --help)";
      return false;
    }
    if (kind->second == Kind::kBool) {
      bool on = true;
      if (eq != std::string::npos && !ParseBool(arg.substr(eq + 1), &on)) {
        *error = "--" + name + " is on or off: --" + name + ", --" + name +
                 "=true or --" + name + "=false, not '" + arg.substr(eq + 1) +
                 "'";
        return false;
      }
      values_[name] = on ? "true" : "false";
    } else if (eq != std::string::npos || i + 1 < argc) {
      const std::string value =
          eq != std::string::npos ? arg.substr(eq + 1) : argv[++i];
      values_[name] = value;
      if (kind->second == Kind::kRepeated) ordered_.emplace_back(name, value);
    } else {
      *error = "--" + name + " needs a value: --" + name + "=VALUE or --" +
               name + " VALUE";
      return false;
    }
  }
  return true;
}

std::string FlagSet::Get(const std::string& name,
                         const std::string& fallback) const {
  const auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second;
}

bool FlagSet::On(const std::string& name, bool fallback) const {
  const auto it = values_.find(name);
  return it == values_.end() ? fallback : it->second == "true";
}

bool FlagSet::Number(const std::string& name, double fallback, double* out,
                     std::string* error) const {
  const std::string text = Get(name);
  if (text.empty()) {
    *out = fallback;
    return true;
  }
  char* end = nullptr;
  *out = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0') {
    *error = "--" + name + "=" + text + " is not a number";
    return false;
  }
  return true;
}

bool FlagSet::Integer(const std::string& name, int64_t fallback, int64_t min,
                      int64_t max, int64_t* out, std::string* error) const {
  const std::string text = Get(name);
  if (text.empty()) {
    *out = fallback;
    return true;
  }
  const std::string range = "give a whole number from " + std::to_string(min) +
                            " to " + std::to_string(max);
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0') {
    *error = "--" + name + "=" + text + " is not a whole number; " + range;
    return false;
  }
  if (errno == ERANGE || value < min || value > max) {
    *error = "--" + name + "=" + text + " is out of range; " + range;
    return false;
  }
  *out = value;
  return true;
}

void ResolveUserPaths(FlagSet* flags, std::initializer_list<const char*> inputs,
                      std::initializer_list<const char*> outputs) {
  const char* user_dir = std::getenv("BUILD_WORKING_DIRECTORY");
  if (user_dir == nullptr) return;
  const auto in_user_dir = [&](const std::string& path) {
    return path.empty() || path[0] == '/' ? path
                                          : std::string(user_dir) + "/" + path;
  };
  for (const char* input : inputs) {
    if (flags->Has(input) && !std::ifstream(flags->Get(input)).good()) {
      flags->Set(input, in_user_dir(flags->Get(input)));
    }
  }
  for (const char* output : outputs) {
    if (flags->Has(output) && flags->Get(output) != "-") {
      flags->Set(output, in_user_dir(flags->Get(output)));
    }
  }
}

}  // namespace llm::cli
