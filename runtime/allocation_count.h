// The counter that malloc_interposer.cc increments and AllocationCounter
// reads. Internal to those two files.
#pragma once

#include <atomic>
#include <cstdint>

namespace llm {

extern std::atomic<uint64_t> g_allocation_count;

}  // namespace llm
