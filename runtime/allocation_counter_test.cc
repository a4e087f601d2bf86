// AllocationCounter tells the truth: it counts where malloc_interposer is
// linked into the executable, and says it cannot anywhere else. Built twice,
// with and without the interposer (LLM_INTERPOSED).
#include "runtime/allocation_counter.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace llm {
namespace {

void* (*volatile allocate)(size_t) = std::malloc;

TEST(AllocationCounter, CountsExactlyWhereItSaysItDoes) {
#if LLM_INTERPOSED
  ASSERT_TRUE(AllocationCounter::Supported());
  const uint64_t before = AllocationCounter::Count();
  void* a = allocate(32);
  void* b = allocate(64);
  EXPECT_EQ(AllocationCounter::Count() - before, 2u);
  std::free(a);
  std::free(b);
#else
  EXPECT_FALSE(AllocationCounter::Supported());
  EXPECT_EQ(AllocationCounter::Count(), 0u);
#endif
}

}  // namespace
}  // namespace llm
