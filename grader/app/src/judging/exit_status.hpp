// The exit status of a grading from its rows (model/exit_codes.hpp).
#pragma once

#include <vector>

#include "model/row.hpp"

namespace spmv::grade {

// kExitSetup if a row could not be graded at all, else kExitSomethingFailed
// if a row failed, else kExitNoGpu if rows were skipped and `strict_gpu`,
// else kExitAllPassed.
int exit_code_of(const std::vector<RowResult>& rows, bool strict_gpu);

// A journal run (CTest) succeeds once every row has a verdict, whatever it
// is: each row's own test (--show-row) says whether it passed; the run
// itself failed only if something could not be graded at all.
int journal_exit_code(const std::vector<RowResult>& rows, bool strict_gpu);

}  // namespace spmv::grade
