// spmv-grade's modes: grading (the default), --list and --aggregate.
#pragma once

#include <stdexcept>

#include "cli/options.hpp"

namespace spmv::grade {

// The grader cannot do its job: a case folder, the reference plugin or the
// output folder is unusable. Exit status kExitSetup.
class SetupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Each returns the process's exit status (exit_codes.hpp).
int run_grading(const Options& options, const Defaults& defaults);
int run_aggregate(const Options& options);
// --show-row: one row of a journal, its verdict as the exit status.
int run_show_row(const Options& options);

}  // namespace spmv::grade
