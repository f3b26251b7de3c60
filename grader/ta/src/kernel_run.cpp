#include "kernel_run.hpp"

#include <cuda_runtime_api.h>

#include "spmv/contract/plugin_table.hpp"
#include "spmv/core/tolerance.hpp"

namespace spmv::ta {

std::vector<const spmv_kernel_entry*> reference_kernels() {
  const spmv_plugin* table = spmv_plugin_entry();
  std::vector<const spmv_kernel_entry*> kernels;
  for (std::uint32_t i = 0; i < table->kernel_count; ++i) kernels.push_back(&table->kernels[i]);
  return kernels;
}

bool reference_kernels_runnable() { return cuda_device_count() > 0; }

KernelRunner::KernelRunner(const CsrMatrix& csr, std::uint64_t x_seed, MemorySpace space)
    : csr_(csr),
      space_(space),
      x_(random_vector(static_cast<std::size_t>(csr.cols), x_seed)),
      golden_(golden_spmv(csr, x_)),
      x_uploaded_(space, std::span<const float>(x_)),
      y_uploaded_(space, static_cast<std::size_t>(csr.rows)) {}

KernelRun KernelRunner::run(const spmv_kernel_entry& kernel, const void* view) {
  try {
    RawBuffer scratch;
    if (kernel.scratch_size != nullptr) {
      if (const std::size_t bytes = kernel.scratch_size(view); bytes > 0) scratch = RawBuffer(space_, bytes);
    }
    y_uploaded_.raw().fill_words(kPoisonBits);
    const spmv_status status = kernel.launch(view, x_uploaded_.data(), y_uploaded_.data(), scratch.data(), nullptr);
    if (status == SPMV_NOT_IMPLEMENTED) return {false, "the kernel says it is not implemented"};
    check_cuda(status, "the kernel's launch");
    if (space_ == MemorySpace::kDevice) check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize after the kernel");
    const ToleranceVerdict verdict = check_result(csr_, x_, golden_, y_uploaded_.download());
    return {verdict.passed, verdict.passed ? std::string() : verdict.describe()};
  } catch (const std::exception& e) {
    return {false, e.what()};
  }
}

}  // namespace spmv::ta
