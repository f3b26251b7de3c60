#include "scoring/scoring.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

namespace spmv::grade {
namespace {

double row_case_weight(const Policy& policy, const RowResult& row) {
  return policy.case_weight(row.case_name, row.case_weight);
}

// Sum of the case weights of each kernel's counted rows.
std::map<std::string, double> counted_case_weights(const Policy& policy, const std::vector<RowResult>& rows) {
  std::map<std::string, double> sums;
  for (const auto& row : rows) {
    if (counts_towards_score(row.verdict)) sums[row.kernel] += row_case_weight(policy, row);
  }
  return sums;
}

// A flag the policy does not accept withholds the row's speed credit.
bool speed_credit_withheld(const Policy& policy, const RowResult& row) {
  for (const auto& flag : row.flags) {
    if (std::find(policy.accepted_flags.begin(), policy.accepted_flags.end(), flag) == policy.accepted_flags.end()) {
      return true;
    }
  }
  return false;
}

double earned_share(const Policy& policy, const RowResult& row) {
  if (row.verdict != Verdict::kPass) return 0;
  if (!row.correctness_only.empty()) {
    // Too short to rank by speed: the policy's share, whatever the speed.
    const bool full = policy.short_rows_full_credit && !speed_credit_withheld(policy, row);
    return policy.correctness_share + (1 - policy.correctness_share) * (full ? 1 : 0);
  }
  const bool credited = row.speedup && !speed_credit_withheld(policy, row);
  const double performance = credited ? performance_credit(policy.band, *row.speedup) : 0;
  return policy.correctness_share + (1 - policy.correctness_share) * performance;
}

}  // namespace

ScoreSummary score_rows(const Policy& policy, const std::vector<RowResult>& rows) {
  const auto case_weight_sums = counted_case_weights(policy, rows);
  // Kernels whose rows are all left out hand their share to the others.
  double kernel_weight_sum = 0;
  for (const auto& [kernel, case_sum] : case_weight_sums) {
    if (case_sum > 0) kernel_weight_sum += policy.kernel_weight(kernel);
  }

  ScoreSummary summary;
  double log_speedup_sum = 0;
  for (const auto& row : rows) {
    RowScore scored;
    scored.counted = counts_towards_score(row.verdict);
    const double case_sum = scored.counted ? case_weight_sums.at(row.kernel) : 0;
    if (scored.counted && case_sum > 0 && kernel_weight_sum > 0) {
      scored.max_score = policy.total_points * (policy.kernel_weight(row.kernel) / kernel_weight_sum) *
                         (row_case_weight(policy, row) / case_sum);
      scored.score = scored.max_score * earned_share(policy, row);
    }
    summary.score += scored.score;
    summary.max_score += scored.max_score;
    summary.rows.push_back(scored);
    if (row.verdict == Verdict::kPass && row.speedup && *row.speedup > 0 && row.correctness_only.empty()) {
      log_speedup_sum += std::log(*row.speedup);
      ++summary.timed_rows;
    }
  }
  if (summary.timed_rows > 0) summary.geomean_speedup = std::exp(log_speedup_sum / summary.timed_rows);
  return summary;
}

}  // namespace spmv::grade
