// How many matrix entries one group of cases holds (grading/grading.hpp):
// a machine that holds more grades a set of large cases in fewer groups,
// and a small one never in groups smaller than before.

#include <gtest/gtest.h>

#include <cstdint>

#include "grading/grading.hpp"

namespace spmv::grade {
namespace {

MemoryBudget budget_of(std::uint64_t gib) { return {gib << 30, "test"}; }

constexpr std::int64_t kMi = std::int64_t{1} << 20;

TEST(GroupEntries, ASmallMachineGroupsAsBefore) {
  EXPECT_EQ(group_entries(budget_of(0)), 64 * kMi);
  EXPECT_EQ(group_entries(budget_of(8)), 64 * kMi);
  EXPECT_EQ(group_entries(budget_of(24)), 64 * kMi);
}

TEST(GroupEntries, ALargerMachineHoldsTwoHundredAndFiftySixBytesAnEntryOfWhatACaseMayUse) {
  // 48 GiB: a case may use 24 GiB, 96 M entries at 256 bytes.
  EXPECT_EQ(group_entries(budget_of(48)), 96 * kMi);
  EXPECT_LT(group_entries(budget_of(40)), group_entries(budget_of(48)));
  EXPECT_GT(group_entries(budget_of(40)), 64 * kMi);
}

// Twice a small machine's at most: gradings sharing a machine each see all
// of it. 64 GiB and up: 128 M.
TEST(GroupEntries, NoMachineHoldsMoreThanTheMost) {
  EXPECT_EQ(group_entries(budget_of(64)), 128 * kMi);
  EXPECT_EQ(group_entries(budget_of(128)), 128 * kMi);
  EXPECT_EQ(group_entries(budget_of(4096)), 128 * kMi);
  EXPECT_EQ(group_entries({~std::uint64_t{0}, "test"}), 128 * kMi);
}

}  // namespace
}  // namespace spmv::grade
