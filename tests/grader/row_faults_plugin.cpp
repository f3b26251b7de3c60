// A host-memory test submission whose kernels fail in different ways, so
// that one grading run has failing rows between correct ones: csr_scalar
// stores through a null pointer, ell never returns, hyb calls exit(0); the
// other kernels are the host reference's own (loaded from
// SPMV_HOST_REFERENCE, its table copied with those three launches swapped).
//
// Its constructor aborts in the child of any row of the case named
// "abort_in_ctor", recognised by the log file the grader sends the child's
// stdout to: the grader's probe of the plugin table loads it without
// trouble, and the crash happens during a row child's start-up.
#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "spmv/contract/plugin.h"

#ifndef SPMV_HOST_REFERENCE
#error "SPMV_HOST_REFERENCE must give the host reference plugin's path"
#endif

namespace {

constexpr const char* kAbortingCase = "abort_in_ctor";

std::string stdout_target() {
  char target[4096];
  const ssize_t length = ::readlink("/proc/self/fd/1", target, sizeof target - 1);
  return length > 0 ? std::string(target, static_cast<std::size_t>(length)) : std::string();
}

[[gnu::constructor]] void abort_in_marked_rows() {
  if (stdout_target().find(std::string("__") + kAbortingCase + ".log") != std::string::npos) std::abort();
}

spmv_status store_through_null(const void*, const float*, float*, void*, cudaStream_t) {
  volatile float* volatile target = nullptr;
  *target = 1.0f;
  std::abort();  // unreachable: the store faults
}

spmv_status never_return(const void*, const float*, float*, void*, cudaStream_t) {
  volatile bool released = false;
  while (!released) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return SPMV_SUCCESS;
}

spmv_status exit_zero(const void*, const float*, float*, void*, cudaStream_t) { std::exit(0); }

spmv_launch_fn fault_of(const char* kernel) {
  if (std::strcmp(kernel, "csr_scalar") == 0) return &store_through_null;
  if (std::strcmp(kernel, "ell") == 0) return &never_return;
  if (std::strcmp(kernel, "hyb") == 0) return &exit_zero;
  return nullptr;
}

const spmv_plugin* make_table() {
  // Kept loaded for the life of the process, as the plugin itself is.
  void* reference = ::dlopen(SPMV_HOST_REFERENCE, RTLD_NOW | RTLD_LOCAL);
  if (reference == nullptr) return nullptr;
  const auto entry = reinterpret_cast<spmv_plugin_entry_fn>(::dlsym(reference, SPMV_PLUGIN_ENTRY_NAME));
  const spmv_plugin* table = entry != nullptr ? entry() : nullptr;
  if (table == nullptr) return nullptr;
  static std::vector<spmv_kernel_entry> kernels(table->kernels, table->kernels + table->kernel_count);
  for (auto& kernel : kernels) {
    if (const spmv_launch_fn fault = fault_of(kernel.name)) kernel.launch = fault;
  }
  static spmv_plugin plugin = *table;
  plugin.name = "row-faults";
  plugin.kernels = kernels.data();
  return &plugin;
}

}  // namespace

extern "C" SPMV_PLUGIN_EXPORT const spmv_plugin* SPMV_PLUGIN_ENTRY(void) {
  static const spmv_plugin* const plugin = make_table();
  return plugin;
}
