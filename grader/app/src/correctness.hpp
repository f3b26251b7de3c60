// Judging a row's result from the result area its runner wrote: the three
// runs' y against the golden results, the guard zones around y, the input
// arrays, and run 1 against run 3 (same x) for a moving error. Also the
// check of one timed launch's y, for a fresh x.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "case_data.hpp"
#include "row.hpp"
#include "row_record.hpp"

namespace spmv::grade {

struct GuardDamage {
  std::int64_t words_before = 0;    // guard words before y[0] that changed
  std::int64_t words_after = 0;     // after y[rows - 1]
  std::int64_t nearest_before = 0;  // k of the changed y[-k] closest to y (0: none)
  std::int64_t nearest_after = -1;  // k of the changed y[rows + k] closest to y (-1: none)
  [[nodiscard]] bool any() const { return words_before + words_after > 0; }
};

GuardDamage inspect_guards(const ResultView& results, int slot);

struct Correctness {
  bool passed = false;
  std::string cause;    // a RowResult::cause token, empty when passed
  std::string summary;  // the main finding, one line
  std::string detail;   // further findings, one per line
  double max_ratio = 0;  // worst |error| / allowed over the runs (inf for NaN)
  std::optional<RowSample> first_bad, worst_bad;
};

// Needs all kRunsPerRow runs written.
Correctness evaluate_correctness(const PreparedCase& prepared, const ResultView& results,
                                 const std::string& modified_inputs);

// The y in `slot` for the x of `seed`: empty when correct (and the guards
// intact), else what is wrong, one line.
std::string check_launch_result(const PreparedCase& prepared, std::uint64_t seed, const ResultView& results, int slot);

}  // namespace spmv::grade
