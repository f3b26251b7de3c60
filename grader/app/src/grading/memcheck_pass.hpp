// --memcheck after the rows: each kernel's three smallest passing cases run
// again under compute-sanitizer (runners/memcheck.hpp); a finding makes the
// row wrong.
#pragma once

#include <filesystem>
#include <vector>

#include "cases/case_data.hpp"
#include "grading/grading_runners.hpp"
#include "grading/setup.hpp"
#include "model/row.hpp"
#include "reports/reporter.hpp"

namespace spmv::grade {

// Cases are prepared as the grading's (`prepare`), each sanitizer run's
// log goes into `logs`, and each run has the row's time limit `timeout_s`.
// What was checked, and what could not be, is said in the reporter's notes.
void memcheck_pass(const Setup& setup, const PrepareOptions& prepare, const std::filesystem::path& logs,
                   double timeout_s, GradingRunners& runners, Reporter& reporter, std::vector<RowResult>& rows);

}  // namespace spmv::grade
