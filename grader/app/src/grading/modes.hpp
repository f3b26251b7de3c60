// spmv-grade's modes: grading (the default, with --list and --show-policy),
// --aggregate and --show-row.
#pragma once

#include "model/options.hpp"

namespace spmv::grade {

// Each returns the process's exit status (model/exit_codes.hpp).
int run_grading(const Options& options, const Defaults& defaults);
int run_aggregate(const Options& options);
// --show-row: one row of a journal, its verdict as the exit status.
int run_show_row(const Options& options);

}  // namespace spmv::grade
