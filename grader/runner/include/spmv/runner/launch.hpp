// One launch of a plugin's kernel, the way every grading path makes it: the
// runner for spmv-grade, the GPU conformance tests, the host-path tests and
// spmv-bench. The steps, in order:
//   1. x between guard zones of NaN (kXGuardWords each side, protocol.hpp):
//      from a seed (x_values.hpp, filled where x lives, no host copy) or
//      from given values;
//   2. y poisoned (kPoisonBits) between guard zones of kGuardBits;
//   3. the launch on the executor's stream, then the whole device waited
//      for (work hidden on another stream included), sticky errors read;
//   4. y and its guard zones captured as one result slot (slot_words(rows)
//      32-bit words), judged by y_guards.hpp and the tolerance check;
//   5. the inputs compared with what was uploaded: every matrix array, its
//      guard zones, the view struct, x and x's guard zones.
// spmv-grade times launches in chained bursts (burst.hpp, chain.hpp) by its
// own clock; spmv-bench with the executor's time() and timing.hpp.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "spmv/contract/plugin.h"
#include "spmv/memory/buffer.hpp"
#include "spmv/runner/executor.hpp"
#include "spmv/runner/uploaded.hpp"

namespace spmv::runner {

struct LaunchStatus {
  spmv_status status = SPMV_SUCCESS;  // what the kernel returned
  int error = 0;                      // the cudaError_t waiting for it left (0: none)
  [[nodiscard]] bool ok() const { return status == SPMV_SUCCESS && error == 0; }
};

// x, y and scratch for launches of one kernel on one uploaded matrix, in the
// executor's memory space. `kernel` may be null: launches then do nothing
// (the round trip's own cost, and the vendor library's timing). The scratch
// is the area's own, of the kernel's scratch_size, unless `shared_scratch`
// is given (a test handing one scratch from launch to launch); it must then
// be large enough and outlive the area.
class LaunchArea {
 public:
  LaunchArea(Executor& executor, const UploadedMatrix& matrix, const spmv_kernel_entry* kernel, std::int64_t rows,
             std::int64_t cols, const RawBuffer* shared_scratch = nullptr);

  // Steps 1 and 2: x of `seed`, or these values (cols of them); y poisoned.
  void prepare(std::uint64_t seed);
  void prepare(std::span<const float> x);

  // Step 3: one launch, waited for.
  LaunchStatus launch();
  // The launch call alone, into `y` (rows words), nothing waited for: how
  // chained bursts (burst.hpp) enqueue it. SPMV_SUCCESS without a kernel.
  spmv_status enqueue(float* y) const;

  // Step 4: y between its guard zones, into `slot` (slot_words(rows) words).
  void copy_slot(std::uint32_t* slot) const;
  [[nodiscard]] std::vector<std::uint32_t> slot() const;

  // Step 5: names of the inputs found changed since prepare() ("x", "col_idx",
  // "the guard zones around values", ...); empty when none. Without
  // `with_matrix`, x and its guard zones only (each array of the matrix is
  // copied back to be compared: the costly part, and a change to the
  // matrix stays until it is looked for, where x is written afresh by
  // every prepare()).
  [[nodiscard]] std::vector<std::string> modified_inputs(bool with_matrix = true) const;

  [[nodiscard]] const float* x() const;
  // x's guard zones and values (kXGuardWords + cols + kXGuardWords words).
  [[nodiscard]] std::uint32_t* x_words() const { return static_cast<std::uint32_t*>(x_.data()); }
  [[nodiscard]] std::int64_t cols() const { return cols_; }
  [[nodiscard]] bool has_kernel() const { return kernel_ != nullptr; }
  [[nodiscard]] float* y() const;
  [[nodiscard]] std::int64_t rows() const { return rows_; }

 private:
  Executor& executor_;
  const UploadedMatrix& matrix_;
  const spmv_kernel_entry* kernel_;
  std::int64_t rows_, cols_;
  RawBuffer x_, y_, scratch_;
  void* scratch_data_ = nullptr;  // scratch_'s, or the shared scratch's
  // What prepare() put in x: the seed, or the values given. The words to
  // compare with are made only when asked for (modified_inputs), so a timed
  // launch's preparation costs no pass over x on the host.
  bool prepared_ = false;
  std::uint64_t x_seed_ = 0;
  std::vector<float> x_given_;
  bool x_was_given_ = false;
};

// The rows of y in a captured slot, as floats.
std::vector<float> y_of_slot(std::span<const std::uint32_t> slot, std::int64_t rows);
// Its guard zones.
std::span<const std::uint32_t> guard_before(std::span<const std::uint32_t> slot);
std::span<const std::uint32_t> guard_after(std::span<const std::uint32_t> slot, std::int64_t rows);

// "SPMV_NOT_IMPLEMENTED", "returned cudaErrorLaunchFailure", ... for a
// launch that was not ok.
std::string describe_launch(const LaunchStatus& status);

}  // namespace spmv::runner
