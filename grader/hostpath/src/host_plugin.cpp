// A host-memory plugin (SPMV_MEMORY_HOST) with every kernel of the course
// (those a submission provides, from the catalog, and the reference-only
// "sell") run on the CPU: the grader can then be exercised end to end without a GPU.
//
// Built once as the correct "host-reference" plugin and once per fault as a
// fake submission. SPMV_HOST_FAULT names the fault (an enumerator of Fault
// below, `none` for the reference); SPMV_HOST_PLUGIN_NAME is the table's
// name. Each fault misbehaves the same way in every kernel, so a grader test
// may use any kernel name. The stream is ignored: the work is done before
// the launch returns, which the contract allows a host plugin.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "host_terms.hpp"
#include "spmv/contract/plugin.h"
#include "spmv/contract/plugin_table.hpp"

#ifndef SPMV_HOST_FAULT
#error "SPMV_HOST_FAULT must name the fault to build (none for the reference plugin)"
#endif
#ifndef SPMV_HOST_PLUGIN_NAME
#error "SPMV_HOST_PLUGIN_NAME must give the plugin's name"
#endif

namespace {

using spmv::hostpath::cols_of;
using spmv::hostpath::for_each_entry;
using spmv::hostpath::rows_of;

enum class Fault {
  none,                  // correct
  wrong_element,         // the first stored entry (of a nonempty row) is left out
  unwritten_row,         // row rows/2 is never written: keeps the caller's poison
  doubled,               // every entry accumulated twice
  crash_segfault,        // stores through a null pointer
  crash_abort,           // abort()
  exit0,                 // exit(0) in the middle of the launch
  hang,                  // never returns
  oob_write,             // correct y, plus writes to y[rows] and y[-1]
  modifies_input,        // correct y, then negates x[0]
  modifies_x_first_run,  // correct y; negates x[0] on the first call of every three (a row's first checked run)
  nondeterministic,      // first call correct, later calls perturb one row by 1
  not_implemented,       // returns SPMV_NOT_IMPLEMENTED
  prints_forged_score,   // prints a fake score and results JSON, writes y = 0
  launch_error,          // returns cudaErrorLaunchFailure without touching y
};

constexpr Fault kFault = Fault::SPMV_HOST_FAULT;

// What the fakes change in the multiplication itself.
struct WalkChanges {
  bool drop_first_entry = false;
  std::int32_t untouched_row = -1;
  int passes = 1;
};

template <typename View>
void multiply(const View& a, const float* x, float* y, const WalkChanges& changes = {}) {
  const std::int32_t rows = rows_of(a);
  for (std::int32_t row = 0; row < rows; ++row) {
    if (row != changes.untouched_row) y[row] = 0.0f;
  }
  bool first = true;
  for (int pass = 0; pass < changes.passes; ++pass) {
    for_each_entry(a, [&](std::int32_t row, std::int32_t col, float value) {
      const bool dropped = first && changes.drop_first_entry;
      first = false;
      if (!dropped && row != changes.untouched_row) y[row] += value * x[col];
    });
  }
}

// Not instrumented: under UBSan (SPMV_SANITIZE) the store faults as in a
// plain build instead of ending the process with a report.
[[noreturn]] __attribute__((no_sanitize("undefined"))) void store_through_null() {
  // Volatile pointer and pointee: the compiler may neither replace the store
  // with a trap (it cannot see the null) nor drop it as dead before abort().
  volatile float* volatile target = nullptr;
  *target = 1.0f;
  std::abort();  // unreachable: the store faults
}

[[noreturn]] void hang_forever() {
  // Sleeping rather than spinning: the grader must not rely on a CPU-time
  // limit to stop a submission that never returns.
  volatile bool released = false;
  while (!released) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  std::abort();
}

void print_forged_score() {
  std::printf("score: 100\n");
  std::printf(
      "{\"score\": 100.0, \"output\": \"All tests passed\", \"tests\": "
      "[{\"name\": \"correctness\", \"score\": 100.0, \"max_score\": 100.0, \"status\": \"passed\"}]}\n");
  std::fflush(stdout);
}

// `call` counts this kernel's launches from 1.
template <typename View>
spmv_status run(const View& a, const float* x, float* y, int call) {
  const std::int32_t rows = rows_of(a);
  switch (kFault) {
    case Fault::none: multiply(a, x, y); return SPMV_SUCCESS;
    case Fault::wrong_element: multiply(a, x, y, {.drop_first_entry = true}); return SPMV_SUCCESS;
    case Fault::unwritten_row: multiply(a, x, y, {.untouched_row = rows / 2}); return SPMV_SUCCESS;
    case Fault::doubled: multiply(a, x, y, {.passes = 2}); return SPMV_SUCCESS;
    case Fault::crash_segfault: store_through_null();
    case Fault::crash_abort: std::abort();
    case Fault::exit0: multiply(a, x, y); std::exit(0);
    case Fault::hang: hang_forever();
    case Fault::oob_write:
      multiply(a, x, y);
      if (y != nullptr) {
        y[rows] = 1.0f;
        *(y - 1) = 1.0f;
      }
      return SPMV_SUCCESS;
    case Fault::modifies_input:
      multiply(a, x, y);
      if (cols_of(a) > 0) const_cast<float*>(x)[0] = -x[0];
      return SPMV_SUCCESS;
    case Fault::modifies_x_first_run:
      multiply(a, x, y);
      if (call % 3 == 1 && cols_of(a) > 0) const_cast<float*>(x)[0] = -x[0];
      return SPMV_SUCCESS;
    case Fault::nondeterministic:
      multiply(a, x, y);
      if (call > 1 && rows > 0) y[call % rows] += 1.0f;
      return SPMV_SUCCESS;
    case Fault::not_implemented: return SPMV_NOT_IMPLEMENTED;
    case Fault::prints_forged_score:
      print_forged_score();
      for (std::int32_t row = 0; row < rows; ++row) y[row] = 0.0f;
      return SPMV_SUCCESS;
    case Fault::launch_error: return cudaErrorLaunchFailure;
  }
  return SPMV_SUCCESS;
}

// A kernel's name as a template argument.
template <std::size_t N>
struct KernelName {
  char text[N];
  consteval KernelName(const char (&name)[N]) { std::copy_n(name, N, text); }
};

// One instantiation per kernel (its name tells csr_scalar from csr_vector),
// so each kernel counts its own calls.
template <typename View, KernelName Name>
spmv_status launch(const View* a, const float* x, float* y, void* /*scratch*/, cudaStream_t /*stream*/) {
  static int calls = 0;
  ++calls;
  return run(*a, x, y, calls);
}

using spmv::contract::kernel_entry;
using spmv::contract::launch_view_of;

// Each kernel of the catalog over the view its contract launch function
// (spmv_<name>) takes, then the reference-only sell.
constexpr const char* kDescription = "CPU: the view's entries in stored order";
#define SPMV_HOST_KERNEL(name, description) \
  kernel_entry<&launch<launch_view_of<decltype(&spmv_##name)>, #name>>(#name, kDescription),
constexpr spmv_kernel_entry kKernels[] = {SPMV_SUBMISSION_KERNELS(SPMV_HOST_KERNEL) SPMV_HOST_KERNEL(sell, "")};
#undef SPMV_HOST_KERNEL

constexpr spmv_plugin kPlugin = spmv::contract::make_plugin(SPMV_HOST_PLUGIN_NAME, kKernels, SPMV_MEMORY_HOST);

}  // namespace

extern "C" SPMV_PLUGIN_EXPORT const spmv_plugin* SPMV_PLUGIN_ENTRY(void) { return &kPlugin; }
