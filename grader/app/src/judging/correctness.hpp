// Judging a row's result from the result area its runner wrote: the three
// runs' y against the golden results, the guard zones around y, the input
// arrays, and run 1 against run 3 (same x) for a moving error. Also the
// check of one timed launch's y, for a fresh x.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "cases/case_data.hpp"
#include "judging/row_record.hpp"
#include "model/row.hpp"
#include "spmv/runner/y_guards.hpp"

namespace spmv::grade {

// What the launch of result slot `slot` wrote outside y (spmv/runner/y_guards.hpp).
runner::GuardDamage inspect_guards(const ResultView& results, int slot);

struct Correctness {
  bool passed = false;
  std::string cause;     // a RowResult::cause token, empty when passed
  std::string summary;   // the main finding, one line
  std::string detail;    // further findings, one per line
  double max_ratio = 0;  // worst |error| / allowed over the runs (inf for NaN)
  std::optional<RowSample> first_bad, worst_bad;
};

// Needs the first `runs` of the kRunsPerRow runs written (a race, runs 1
// and 3 apart, is looked for only with all three).
Correctness evaluate_correctness(const PreparedCase& prepared, const ResultView& results,
                                 const std::string& modified_inputs, int runs = kRunsPerRow);

// The y in `slot` for the x of `seed`: empty when correct (and the guards
// intact), else what is wrong, one line.
std::string check_launch_result(const PreparedCase& prepared, std::uint64_t seed, const ResultView& results, int slot);

// Link `link` of a burst of `burst_seed` (spmv/runner/chain.hpp) from the
// copies of y_{link-1} (kPreviousLinkSlot; unused for link 1) and y_link
// (kLinkSlot) in `results`: both digests against the burst's reply
// (`digests`, d_1 .. d_links), x_link derived from y_{link-1}, and y_link
// against its golden result. Empty when right, else what is wrong.
std::string check_link(const PreparedCase& prepared, std::uint64_t burst_seed, int link,
                       std::span<const std::uint64_t> digests, const ResultView& results);

}  // namespace spmv::grade
