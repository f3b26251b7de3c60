// A host-memory test submission whose kernels fail in different ways, so
// that one grading run has failing rows between correct ones: csr_scalar
// stores through a null pointer, ell never returns, hyb calls exit(0), jds
// is wrong on matrices of more than 20 rows only; coo and csr_vector are
// correct (the host reference's walk over the view). Built with
// SPMV_STUB_FAULTS: coo is not implemented, csr_vector is always wrong,
// ell prints "ell was here" once in its process (rows sharing a runner
// each show their own output only), and hyb is correct on the first matrix
// its process sees and wrong on any other (a row graded after another in
// one runner fails there, and passes in a runner of its own).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "host_terms.hpp"
#include "spmv/contract/plugin.h"
#include "spmv/contract/plugin_table.hpp"

namespace {

using spmv::hostpath::for_each_entry;
using spmv::hostpath::rows_of;

template <typename View>
spmv_status correct(const View* a, const float* x, float* y, void*, cudaStream_t) {
  for (std::int32_t row = 0; row < rows_of(*a); ++row) y[row] = 0.0f;
  for_each_entry(*a, [&](std::int32_t row, std::int32_t col, float value) { y[row] += value * x[col]; });
  return SPMV_SUCCESS;
}

// Not instrumented: under UBSan (SPMV_SANITIZE) the store faults as in a
// plain build instead of ending the runner with a report.
[[maybe_unused]] __attribute__((no_sanitize("undefined"))) spmv_status store_through_null(const spmv_csr_view*,
                                                                                          const float*, float*, void*,
                                                                                          cudaStream_t) {
  volatile float* volatile target = nullptr;
  *target = 1.0f;
  std::abort();  // unreachable: the store faults
}

[[maybe_unused]] spmv_status never_return(const spmv_ell_view*, const float*, float*, void*, cudaStream_t) {
  volatile bool released = false;
  while (!released) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return SPMV_SUCCESS;
}

// Correct on small matrices; on larger ones, one row's sum is left out.
[[maybe_unused]] spmv_status wrong_when_large(const spmv_jds_view* a, const float* x, float* y, void* scratch,
                                              cudaStream_t stream) {
  const spmv_status status = correct(a, x, y, scratch, stream);
  if (rows_of(*a) > 20) y[rows_of(*a) / 2] += 1.0f;
  return status;
}

[[maybe_unused]] spmv_status not_implemented(const spmv_coo_view*, const float*, float*, void*, cudaStream_t) {
  return SPMV_NOT_IMPLEMENTED;
}

[[maybe_unused]] spmv_status always_wrong(const spmv_csr_view* a, const float* x, float* y, void* scratch,
                                          cudaStream_t stream) {
  const spmv_status status = correct(a, x, y, scratch, stream);
  y[0] += 1.0f;
  return status;
}

[[maybe_unused]] spmv_status correct_and_says_so(const spmv_ell_view* a, const float* x, float* y, void* scratch,
                                                 cudaStream_t stream) {
  static bool said = false;
  if (!said) {
    said = true;
    std::fputs("ell was here\n", stderr);
    std::fflush(stderr);
  }
  return correct(a, x, y, scratch, stream);
}

[[maybe_unused]] spmv_status correct_on_first_matrix(const spmv_hyb_view* a, const float* x, float* y, void* scratch,
                                                     cudaStream_t stream) {
  static const std::int32_t first_rows = rows_of(*a);
  const spmv_status status = correct(a, x, y, scratch, stream);
  if (rows_of(*a) != first_rows) y[0] += 1.0f;
  return status;
}

[[maybe_unused]] spmv_status exit_zero(const spmv_hyb_view*, const float*, float*, void*, cudaStream_t) {
  std::exit(0);
}

using spmv::contract::kernel_entry;

#ifdef SPMV_STUB_FAULTS
constexpr spmv_kernel_entry kKernels[] = {
    kernel_entry<&not_implemented>("coo", "not implemented"),
    kernel_entry<&correct<spmv_csr_view>>("csr_scalar", "correct"),
    kernel_entry<&always_wrong>("csr_vector", "wrong"),
    kernel_entry<&correct_and_says_so>("ell", "correct, and prints once"),
    kernel_entry<&correct_on_first_matrix>("hyb", "correct on its process's first matrix"),
    kernel_entry<&correct<spmv_jds_view>>("jds", "correct"),
};
#else
constexpr spmv_kernel_entry kKernels[] = {
    kernel_entry<&correct<spmv_coo_view>>("coo", "correct"),
    kernel_entry<&store_through_null>("csr_scalar", "SIGSEGV"),
    kernel_entry<&correct<spmv_csr_view>>("csr_vector", "correct"),
    kernel_entry<&never_return>("ell", "hangs"),
    kernel_entry<&exit_zero>("hyb", "exit(0)"),
    kernel_entry<&wrong_when_large>("jds", "wrong over 20 rows"),
};
#endif

constexpr spmv_plugin kPlugin = spmv::contract::make_plugin("row-faults", kKernels, SPMV_MEMORY_HOST);

}  // namespace

extern "C" SPMV_PLUGIN_EXPORT const spmv_plugin* SPMV_PLUGIN_ENTRY(void) { return &kPlugin; }
