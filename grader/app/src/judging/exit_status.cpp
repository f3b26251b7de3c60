#include "judging/exit_status.hpp"

#include <algorithm>
#include <initializer_list>

#include "model/exit_codes.hpp"

namespace spmv::grade {
namespace {

bool any_of_verdict(const std::vector<RowResult>& rows, std::initializer_list<Verdict> verdicts) {
  return std::any_of(rows.begin(), rows.end(), [&](const RowResult& row) {
    return std::find(verdicts.begin(), verdicts.end(), row.verdict) != verdicts.end();
  });
}

}  // namespace

int exit_code_of(const std::vector<RowResult>& rows, bool strict_gpu) {
  if (any_of_verdict(rows, {Verdict::kGraderError, Verdict::kCaseError})) return kExitSetup;
  const bool all_passed = std::all_of(rows.begin(), rows.end(), [](const RowResult& row) {
    return is_success(row.verdict) || row.verdict == Verdict::kSkipped;
  });
  if (!all_passed) return kExitSomethingFailed;
  if (any_of_verdict(rows, {Verdict::kSkipped}) && strict_gpu) return kExitNoGpu;
  return kExitAllPassed;
}

int journal_exit_code(const std::vector<RowResult>& rows, bool strict_gpu) {
  const int code = exit_code_of(rows, strict_gpu);
  return code == kExitSomethingFailed ? kExitAllPassed : code;
}

}  // namespace spmv::grade
