// Running a plugin table's kernels on a matrix, as a smoke test that a case
// is gradable: validate runs the reference kernels (if they cannot pass on a
// case, no submission can); tests run the host-path plugins the same way.
//
// Each launch is made as the grader's runner makes it (spmv/runner/launch.hpp):
// x and y between guard zones, y poisoned, the matrix between guard zones;
// y is checked against the golden result with the grader's tolerance, and
// the guard zones and inputs must be untouched.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "spmv/contract/plugin.h"
#include "spmv/core/formats.hpp"
#include "spmv/core/golden.hpp"
#include "spmv/memory/buffer.hpp"
#include "spmv/runner/executor.hpp"
#include "spmv/runner/uploaded.hpp"

namespace spmv::ta {

// The kernels of the reference table (reference/reference_table.cpp),
// linked in: they run on a CUDA device.
std::vector<const spmv_kernel_entry*> reference_kernels();

bool reference_kernels_runnable();  // a CUDA device is present

struct KernelRun {
  bool passed = false;
  std::string detail;  // why it failed; empty on a pass
};

// x, its golden product and copies of x and y in the kernels' memory, shared
// by every kernel run on one matrix.
class KernelRunner {
 public:
  KernelRunner(const CsrMatrix& csr, std::uint64_t x_seed, MemorySpace space);

  [[nodiscard]] MemorySpace space() const { return executor_->space(); }

  // `matrix` is the matrix uploaded in this runner's memory space, in the
  // kernel's format.
  KernelRun run(const spmv_kernel_entry& kernel, const runner::UploadedMatrix& matrix);

 private:
  const CsrMatrix& csr_;
  std::unique_ptr<runner::Executor> executor_;
  std::vector<float> x_;
  GoldenResult golden_;
};

}  // namespace spmv::ta
