// Routes ExecuTorch's log messages through the runner.
//
// The runtime reports the interesting part of a failure ("Missing operator:
// llama::foo.out", "Invalid magic") only as a log line, while the API returns
// a bare error code. We replace the platform log hook so that:
//   * the last error line can be quoted in the runner's own error message;
//   * info/debug chatter stays off stdout, where generated text streams.
#pragma once

#include <string>

namespace llm {

// The first error-level message since ClearRuntimeError(), or "".
std::string FirstRuntimeError();
void ClearRuntimeError();

// Print every runtime message to stderr (default: errors only).
void SetRuntimeLogVerbose(bool verbose);

}  // namespace llm
