// The kernel table of a submission plugin: the six kernels every submission
// implements, one per file of student/ (or of a submitted copy of it).
// SPMV_PLUGIN_NAME, set by spmv_add_submission_plugin, names the plugin.
#include "spmv/contract/plugin_table.hpp"

#ifndef SPMV_PLUGIN_NAME
#error "SPMV_PLUGIN_NAME must name the plugin (spmv_add_submission_plugin sets it)"
#endif

namespace {

using spmv::contract::kernel_entry;

constexpr spmv_kernel_entry kKernels[] = {
    kernel_entry<&spmv_coo>("coo", "COO, one thread per entry, atomic adds into y"),
    kernel_entry<&spmv_csr_scalar>("csr_scalar", "CSR, one thread per row"),
    kernel_entry<&spmv_csr_vector>("csr_vector", "CSR, a group of threads per row, warp-shuffle reduction"),
    kernel_entry<&spmv_ell>("ell", "ELLPACK-R, one thread per row over column-major slots"),
    kernel_entry<&spmv_hyb>("hyb", "HYB, an ELL pass writing y then a COO pass adding the long rows' rest"),
    kernel_entry<&spmv_jds>("jds", "JDS, one thread per length-sorted row along the jagged diagonals"),
};

constexpr spmv_plugin kPlugin = spmv::contract::make_plugin(SPMV_PLUGIN_NAME, kKernels);

}  // namespace

extern "C" SPMV_PLUGIN_EXPORT const spmv_plugin* SPMV_PLUGIN_ENTRY(void) { return &kPlugin; }
