// The reference plugin's kernel table: every reference kernel, one entry
// each. A kernel added here is picked up by the grader (as the baseline of
// its format), the bench and the GPU conformance tests.
#include "spmv/contract/plugin_table.hpp"

namespace {

using spmv::contract::kernel_entry;

constexpr spmv_kernel_entry kKernels[] = {
    kernel_entry<&spmv_coo>("coo", "COO, y zeroed, then one thread per entry with atomicAdd"),
    kernel_entry<&spmv_csr_scalar>("csr_scalar", "CSR, one thread per row"),
    kernel_entry<&spmv_csr_vector>("csr_vector", "CSR, 2-32 threads per row by mean row length, shuffle reduction"),
    kernel_entry<&spmv_ell>("ell", "ELLPACK-R, one thread per row, stops at the row's length"),
    kernel_entry<&spmv_hyb>("hyb", "HYB, ELL kernel writes y, COO kernel adds the rest atomically"),
    kernel_entry<&spmv_jds>("jds", "JDS, one thread per sorted row, stops at the first short diagonal"),
    kernel_entry<&spmv_csr_merge, &spmv_csr_merge_scratch_size>(
        "csr_merge", "CSR, merge-path tiles of equal work, block segmented scan"),
    kernel_entry<&spmv_csr_stream>("csr_stream", "CSR, blocks of consecutive rows staged in shared memory"),
    kernel_entry<&spmv_coo_segmented>("coo_segmented", "COO, equal tiles of entries, block segmented scan"),
    kernel_entry<&spmv_sell>("sell", "SELL-C-sigma, one thread per sorted row, slices of C rows"),
    kernel_entry<&spmv_csr_auto, &spmv_csr_auto_scratch_size>(
        "auto",
        "CSR, picks a thread per row, csr_vector, csr_merge (one launch when small) or csr_stream by the row lengths"),
};

constexpr spmv_plugin kPlugin = spmv::contract::make_plugin("reference", kKernels);

}  // namespace

extern "C" SPMV_PLUGIN_EXPORT const spmv_plugin* SPMV_PLUGIN_ENTRY(void) { return &kPlugin; }
