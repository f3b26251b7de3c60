// Points of each row and the total, from the policy and the rows' verdicts
// and speedups. The one place where points are computed: the live reports,
// the CTest journal aggregation and the tests all go through score_rows().
#pragma once

#include <optional>
#include <vector>

#include "model/row.hpp"
#include "scoring/policy.hpp"

namespace spmv::grade {

struct RowScore {
  double score = 0;
  double max_score = 0;
  bool counted = false;  // false: left out of the maximum (not applicable, case error)
};

struct ScoreSummary {
  double score = 0;
  double max_score = 0;
  std::vector<RowScore> rows;  // parallel to the rows scored
  // Geometric mean of the speedups of correct, timed rows; the leaderboard value.
  std::optional<double> geomean_speedup;
  int timed_rows = 0;
};

// total_points split over the kernels present by weight, each kernel's share
// over its counted rows by case weight; a row earns correctness_share for a
// correct result and the rest times performance_credit(speedup).
ScoreSummary score_rows(const Policy& policy, const std::vector<RowResult>& rows);

}  // namespace spmv::grade
