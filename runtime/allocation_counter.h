// Counts heap allocations made by the whole process (this binary and every
// shared library it loads, ExecuTorch and XNNPACK included).
//
// The runner promises that decoding a token allocates nothing: every buffer is
// planned before the first token. This counter is how that promise is checked
// and reported (`decode_allocations` in the stats JSON) rather than assumed.
//
// On glibc the counter interposes malloc and friends (see
// allocation_counter.cc). Where that is not possible (bionic), `Supported()`
// is false and the stats report null instead of a made-up zero.
#pragma once

#include <cstdint>

namespace llm {

class AllocationCounter {
 public:
  // True when every malloc/calloc/realloc/aligned allocation is counted.
  static bool Supported();
  // Allocations since the process started.
  static uint64_t Count();
};

}  // namespace llm
