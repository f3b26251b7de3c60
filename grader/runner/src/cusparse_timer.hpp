// cuSPARSE's CSR SpMV (generic API, CUSPARSE_SPMV_CSR_ALG1) timed on a
// case's matrix: context for the report, never part of the score. Runs in a
// row's child on the GPU; cuSPARSE is linked into the grader only, never
// into a plugin.
#pragma once

#include <span>
#include <string>

#include "spmv/contract/csr.h"
#include "spmv/runner/executor.hpp"
#include "spmv/runner/timing.hpp"

namespace spmv::runner {

struct CusparseTiming {
  bool timed = false;
  TimingResult timing;
  std::string note;  // why it was not timed
};

// `a`: a CSR view of device arrays (the runner's upload of the case).
CusparseTiming time_cusparse_csr(const spmv_csr_view& a, std::span<const float> x, Executor& executor,
                                 const TimingOptions& options);

}  // namespace spmv::runner
