#include "spmv/runner/y_guards.hpp"

#include <sstream>

#include "spmv/runner/protocol.hpp"

namespace spmv::runner {

GuardDamage inspect_y_guards(std::span<const std::uint32_t> before, std::span<const std::uint32_t> after) {
  GuardDamage damage;
  for (std::size_t i = 0; i < before.size(); ++i) {
    if (before[i] == kGuardBits) continue;
    ++damage.words_before;
    damage.nearest_before = static_cast<std::int64_t>(before.size() - i);  // the last changed is the nearest
  }
  for (std::size_t i = 0; i < after.size(); ++i) {
    if (after[i] == kGuardBits) continue;
    if (damage.words_after++ == 0) damage.nearest_after = static_cast<std::int64_t>(i);
  }
  return damage;
}

std::string describe_y_guards(const GuardDamage& damage, std::int64_t rows) {
  if (!damage.any()) return "";
  std::ostringstream text;
  text << "out-of-bounds write: ";
  if (damage.words_before > 0) {
    text << damage.words_before << " value(s) written before y[0] (nearest: y[-" << damage.nearest_before << "])";
  }
  if (damage.words_before > 0 && damage.words_after > 0) text << " and ";
  if (damage.words_after > 0) {
    text << damage.words_after << " value(s) written after y[" << rows - 1 << "] (nearest: y["
         << rows + damage.nearest_after << "])";
  }
  return text.str();
}

}  // namespace spmv::runner
