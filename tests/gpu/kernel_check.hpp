// Launching a plugin's kernel the way the grader does, and the checks every
// kernel conformance test applies to the result.
#pragma once

#include <string>
#include <vector>

#include "spmv/contract/plugin.h"
#include "spmv/core/formats.hpp"
#include "spmv/runner/executor.hpp"
#include "uploaded_matrix.hpp"

namespace spmv::test {

// Kernels whose result may differ bit for bit between two runs on the same
// input: the atomics of COO and HYB add in whatever order threads arrive.
bool may_vary_between_runs(const spmv_kernel_entry& kernel);

// Runs `kernel` twice on each layout with x, through the run protocol
// (spmv/runner/launch.hpp, as the grader's runner does), and expects for
// every run: the launch returns SPMV_SUCCESS and leaves no CUDA error, every
// row of y passes spmv::check_result against golden, nothing is written in
// the guard zones around y, A, x and their guard zones are unchanged; and
// both runs agree bit for bit unless may_vary_between_runs. `a` is the
// matrix every layout holds; the layouts must live in the executor's memory
// space. Returns y of each layout's first run (empty for a layout whose
// launch failed).
std::vector<std::vector<float>> expect_matches_golden(const spmv_kernel_entry& kernel,
                                                      const std::vector<UploadedMatrix>& layouts, const CsrMatrix& a,
                                                      const std::vector<float>& x, runner::Executor& executor);

// Runs `kernel` once on `layout` through the run protocol and expects: the
// launch returns SPMV_SUCCESS, nothing is written around y, the inputs are
// unchanged, and y passes spmv::check_result against `product`, a sequential
// product of `a` rounded once per row (the CPU product of the layout's
// format) in place of golden: the tolerance bound, whose scale and row
// lengths are golden's, then holds it as it holds golden.
void expect_matches_product(const spmv_kernel_entry& kernel, const UploadedMatrix& layout, const CsrMatrix& a,
                            const std::vector<float>& x, const std::vector<float>& product, runner::Executor& executor);

}  // namespace spmv::test
