// The guard zones around y in a result slot (protocol.hpp: kYGuardWords of
// kGuardBits on each side of the rows): what a launch wrote outside y, and
// how the reports say it. The parent reads a runner's slots with this; the
// GPU and host-path tests read their own launches' slots with it too.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace spmv::runner {

struct GuardDamage {
  std::int64_t words_before = 0;    // guard words before y[0] that changed
  std::int64_t words_after = 0;     // after y[rows - 1]
  std::int64_t nearest_before = 0;  // k of the changed y[-k] closest to y (0: none)
  std::int64_t nearest_after = -1;  // k of the changed y[rows + k] closest to y (-1: none)
  [[nodiscard]] bool any() const { return words_before + words_after > 0; }
};

// `before` and `after`: the guard words of a slot, in memory order.
GuardDamage inspect_y_guards(std::span<const std::uint32_t> before, std::span<const std::uint32_t> after);

// "out-of-bounds write: 2 value(s) written before y[0] (nearest: y[-1]) and ..."; empty when none.
std::string describe_y_guards(const GuardDamage& damage, std::int64_t rows);

}  // namespace spmv::runner
