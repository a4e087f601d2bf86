// Counts heap allocations made by the whole process (this binary and every
// shared library it loads, ExecuTorch and XNNPACK included).
//
// The runner promises that decoding a token allocates nothing: every buffer is
// planned before the first token. This counter is how that promise is checked
// and reported (`decode_allocations` in the stats JSON) rather than assumed.
//
// The counting is done by //runtime:malloc_interposer, which defines malloc
// and friends (glibc only) and is linked into the executables that report it:
// llm_main, the tests and the benches. `Supported()` checks that an
// allocation is actually counted, so in the app's JNI library, on bionic, or
// in any binary without the interposer, it is false and the stats report
// null instead of a made-up zero.
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
