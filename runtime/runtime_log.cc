#include "runtime/runtime_log.h"

#include <executorch/runtime/platform/platform.h>

#include <atomic>
#include <cstdio>
#include <mutex>

namespace {

std::mutex g_mutex;
// Fixed storage: logging may happen while decoding, which must not allocate.
char g_first_error[512] = {0};
std::atomic<bool> g_verbose{false};

}  // namespace

// Overrides the weak default in libexecutorch.so (see runtime_log.h).
extern "C" void et_pal_emit_log_message(et_timestamp_t /*timestamp*/,
                                        et_pal_log_level_t level,
                                        const char* filename,
                                        const char* /*function*/, size_t line,
                                        const char* message, size_t length) {
  const bool is_error = level == kError || level == kFatal;
  if (is_error) {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_first_error[0] == '\0')
      std::snprintf(g_first_error, sizeof(g_first_error), "%.*s",
                    static_cast<int>(length), message);
  }
  if (is_error || g_verbose.load()) {
    std::fprintf(stderr, "[executorch %c %s:%zu] %.*s\n",
                 static_cast<char>(level), filename, line,
                 static_cast<int>(length), message);
  }
}

namespace llm {

std::string FirstRuntimeError() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_first_error;
}

void ClearRuntimeError() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_first_error[0] = '\0';
}

void SetRuntimeLogVerbose(bool verbose) { g_verbose.store(verbose); }

}  // namespace llm
