// The kernel table of a submission plugin: every kernel of the catalog's
// SPMV_SUBMISSION_KERNELS (spmv/contract/catalog.h), one per file of
// student/ (or of a submitted copy of it), in the catalog's order.
// SPMV_PLUGIN_NAME, set by spmv_add_submission_plugin, names the plugin.
#include "spmv/contract/plugin_table.hpp"

#ifndef SPMV_PLUGIN_NAME
#error "SPMV_PLUGIN_NAME must name the plugin (spmv_add_submission_plugin sets it)"
#endif

namespace {

using spmv::contract::kernel_entry;

#define SPMV_SUBMISSION_ENTRY(name, description) kernel_entry<&spmv_##name>(#name, description),
constexpr spmv_kernel_entry kKernels[] = {SPMV_SUBMISSION_KERNELS(SPMV_SUBMISSION_ENTRY)};
#undef SPMV_SUBMISSION_ENTRY

constexpr spmv_plugin kPlugin = spmv::contract::make_plugin(SPMV_PLUGIN_NAME, kKernels);

}  // namespace

extern "C" SPMV_PLUGIN_EXPORT const spmv_plugin* SPMV_PLUGIN_ENTRY(void) { return &kPlugin; }
