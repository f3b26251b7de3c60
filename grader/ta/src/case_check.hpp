// Everything `spmv-cases validate` finds out about one matrix: statistics,
// which reference kernels apply (a padded format may be refused), that each
// converted container is valid, and, with a GPU, whether each reference
// kernel passes on it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "spmv/contract/plugin.h"
#include "spmv/core/cases.hpp"
#include "spmv/core/convert.hpp"
#include "spmv/core/formats.hpp"
#include "spmv/core/matrix_stats.hpp"
#include "spmv/memory/buffer.hpp"

namespace spmv::ta {

enum class KernelState {
  kApplies,        // its format was built and is valid (kernels not run)
  kNotApplicable,  // the conversion was refused (ConversionRefused)
  kPassed,
  kFailed,     // the run failed, or the format could not be built
  kUnchecked,  // the matrix itself could not be loaded
};

struct KernelCell {
  KernelState state = KernelState::kUnchecked;
  std::string detail;  // the refusal or failure
};

struct CheckOptions {
  ConversionLimits limits;
  bool run_kernels = false;
  std::uint64_t x_seed = 1;
  // Where the kernels take their arrays: device memory for the reference
  // table; host memory for the host-path plugins, which test this without a GPU.
  MemorySpace memory = MemorySpace::kDevice;
  // Told what the check is doing now ("reading x.mtx", "converting to ell"),
  // for the progress of long cases (progress.hpp); may be empty.
  std::function<void(const std::string&)> on_phase;
};

struct MatrixCheck {
  MatrixStats stats;
  std::vector<KernelCell> kernels;    // one per kernel asked about, same order
  std::vector<std::string> problems;  // each a sentence, without the case's name
};

// Builds each format the kernels take (one at a time, so peak memory is the
// CSR plus one other form), validates it and, if asked, runs the kernels.
MatrixCheck check_matrix(const CsrMatrix& csr, const std::vector<const spmv_kernel_entry*>& kernels,
                         const CheckOptions& options);

struct CaseReport {
  std::string name;
  std::optional<MatrixCheck> check;  // empty when the matrix could not be loaded
  // Each names the file (and line) at fault: the matrix file, or the
  // manifest line of a generator case (TestCase::origin).
  std::vector<std::string> problems;
};

CaseReport check_case(const TestCase& test_case, const std::filesystem::path& cache_dir,
                      const std::vector<const spmv_kernel_entry*>& kernels, const CheckOptions& options);

// "ell: n/a (...)" lines of a check, for the notes under a table.
std::vector<std::string> not_applicable_notes(const MatrixCheck& check,
                                              const std::vector<const spmv_kernel_entry*>& kernels);

}  // namespace spmv::ta
