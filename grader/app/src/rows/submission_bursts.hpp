// The submission's timed bursts of a row, in its runner: the launch
// captured once into a burst (its host code runs then and never again in a
// burst), untimed bursts that upload the graph, then bursts timed by the
// grader's clock until their fastest agree, each followed by links chosen
// at random copied out for their check (link_checks.hpp). Used by a row
// graded alone (row_grading.cpp) and by a kernel's runner (kernel_grading.cpp).
#pragma once

#include <functional>

#include "rows/link_checks.hpp"
#include "rows/row_plan.hpp"
#include "rows/submission_session.hpp"

namespace spmv::grade {

// False (the record says why) if a step failed. `short_row`: the row's
// speed scores nothing (half_of_bursts bursts, checked less).
// `before_bursts` runs between the capture and the first burst (the
// caller's quiet GPU).
bool time_submission_bursts(RowState& row, SubmissionSession& session, LinkChecks& checks, bool short_row,
                            const std::function<void()>& before_bursts);

// Whether the bursts ran on a GPU (a device runner times them by its events
// too; the host path's are 0).
bool bursts_on_device(const RowBursts& bursts);

}  // namespace spmv::grade
