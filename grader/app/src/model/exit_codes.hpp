// spmv-grade's exit status, documented in --help, and the errors that end
// the program: a SetupError with kExitSetup, a UsageError with kExitUsage.
#pragma once

#include <stdexcept>

#include "spmv/cli/command_line.hpp"

namespace spmv::grade {

// A bad option, value or config file: one line naming the option.
using cli::UsageError;

enum ExitCode : int {
  kExitAllPassed = 0,        // every row passed or is not applicable
  kExitSomethingFailed = 1,  // some row is wrong, crashed, timed out, ...
  kExitUsage = 2,            // bad command line, config file or policy
  kExitSetup = 3,            // the grader could not do its job (a case, the reference, the output)
  // No GPU for a device plugin, with --strict-gpu (CTest's SKIP_RETURN_CODE).
  // 77 is the "skipped" status of Automake's test harness.
  kExitNoGpu = 77,
};

// The grader cannot do its job: a case folder, the reference plugin or the
// output folder is unusable. Exit status kExitSetup.
class SetupError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace spmv::grade
