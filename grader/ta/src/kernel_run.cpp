#include "kernel_run.hpp"

#include <cuda_runtime_api.h>

#include <span>
#include <string>

#include "spmv/contract/plugin_table.hpp"
#include "spmv/core/tolerance.hpp"
#include "spmv/runner/launch.hpp"
#include "spmv/runner/y_guards.hpp"

namespace spmv::ta {

std::vector<const spmv_kernel_entry*> reference_kernels() {
  const spmv_plugin* table = spmv_plugin_entry();
  std::vector<const spmv_kernel_entry*> kernels;
  for (std::uint32_t i = 0; i < table->kernel_count; ++i) kernels.push_back(&table->kernels[i]);
  return kernels;
}

bool reference_kernels_runnable() { return cuda_device_count() > 0; }

namespace {

std::unique_ptr<runner::Executor> executor_for(MemorySpace space) {
  if (space == MemorySpace::kHost) return runner::make_host_executor();
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice");
  return runner::make_device_executor(device);
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

}  // namespace

KernelRunner::KernelRunner(const CsrMatrix& csr, std::uint64_t x_seed, MemorySpace space)
    : csr_(csr),
      executor_(executor_for(space)),
      x_(random_vector(static_cast<std::size_t>(csr.cols), x_seed)),
      golden_(golden_spmv(csr, x_)) {}

KernelRun KernelRunner::run(const spmv_kernel_entry& kernel, const runner::UploadedMatrix& matrix) {
  try {
    runner::LaunchArea area(*executor_, matrix, &kernel, csr_.rows, csr_.cols);
    area.prepare(std::span<const float>(x_));
    const runner::LaunchStatus launched = area.launch();
    if (launched.status == SPMV_NOT_IMPLEMENTED) return {false, "the kernel says it is not implemented"};
    if (!launched.ok()) return {false, "the kernel's launch " + runner::describe_launch(launched)};
    const std::vector<std::uint32_t> slot = area.slot();
    const ToleranceVerdict verdict = check_result(csr_, x_, golden_, runner::y_of_slot(slot, csr_.rows));
    std::string problems = verdict.passed ? std::string() : verdict.describe();
    const std::string outside = runner::describe_y_guards(
        runner::inspect_y_guards(runner::guard_before(slot), runner::guard_after(slot, csr_.rows)), csr_.rows);
    if (!outside.empty()) problems += (problems.empty() ? "" : "; ") + outside;
    const std::vector<std::string> modified = area.modified_inputs();
    if (!modified.empty())
      problems += (problems.empty() ? "" : "; ") + ("the kernel changed its inputs: " + joined(modified));
    return {problems.empty(), problems};
  } catch (const std::exception& e) {
    return {false, e.what()};
  }
}

}  // namespace spmv::ta
