// Judging a row's result from the raw data its child left in the channel:
// the three runs' y against the golden results, the guard zones around y,
// the input arrays, and run 1 against run 3 (same x) for a moving error.
//
// The parent's verdict comes from here; the child calls the same function
// only to decide whether to time (a wrong kernel is not timed).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "case_data.hpp"
#include "channel.hpp"
#include "row.hpp"

namespace spmv::grade {

struct GuardDamage {
  std::int64_t words_before = 0;    // guard words before y[0] that changed
  std::int64_t words_after = 0;     // after y[rows - 1]
  std::int64_t nearest_before = 0;  // k of the changed y[-k] closest to y (0: none)
  std::int64_t nearest_after = -1;  // k of the changed y[rows + k] closest to y (-1: none)
  [[nodiscard]] bool any() const { return words_before + words_after > 0; }
};

GuardDamage inspect_guards(const RowChannel& channel, int run);

struct Correctness {
  bool passed = false;
  std::string cause;    // a RowResult::cause token, empty when passed
  std::string summary;  // the main finding, one line
  std::string detail;   // further findings, one per line
  double max_ratio = 0;  // worst |error| / allowed over the runs (inf for NaN)
  std::optional<RowSample> first_bad, worst_bad;
};

// Needs all kRunsPerRow runs written.
Correctness evaluate_correctness(const PreparedCase& prepared, const RowChannel& channel);

// Which x vector (0 or 1) run `run` uses.
int x_of_run(int run);

}  // namespace spmv::grade
