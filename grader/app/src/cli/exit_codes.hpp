// spmv-grade's exit status, documented in --help.
#pragma once

namespace spmv::grade {

enum ExitCode : int {
  kExitAllPassed = 0,        // every row passed or is not applicable
  kExitSomethingFailed = 1,  // some row is wrong, crashed, timed out, ...
  kExitUsage = 2,            // bad command line, config file or policy
  kExitSetup = 3,            // the grader could not do its job (a case, the reference, the output)
  // No GPU for a device plugin, with --strict-gpu (CTest's SKIP_RETURN_CODE).
  // 77 is the "skipped" status of Automake's test harness.
  kExitNoGpu = 77,
};

}  // namespace spmv::grade
