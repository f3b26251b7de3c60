// The command line of spmv-bench.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "spmv/cli/command_line.hpp"
#include "spmv_bench/suite.hpp"
#include "spmv_bench/timing.hpp"

namespace spmv::bench {

// A bad option or value: the command-line programs' one error (spmv::cli).
using UsageError = cli::UsageError;

struct BenchOptions {
  SourceRequest sources;
  std::vector<std::string> kernel_filters;  // substrings; empty = every kernel
  TimingOptions timing;
  std::optional<std::filesystem::path> csv_path;
  std::uint64_t seed = 0;  // of the x vector
  int device = 0;
  std::size_t copy_bytes = 0;                        // one way, for the copy-bandwidth measurement
  std::optional<std::filesystem::path> write_cases;  // a case folder to write instead of timing
  // Time each kernel auto's rule could pick on each matrix (as
  // "auto=<choice>" rows), next to auto itself.
  bool candidates = false;
  bool list = false;
  // Lay out auto's plan for each matrix on the host and print it (no GPU).
  bool plans = false;
  // Names of the thresholds to sweep (threshold_sweep.hpp; "all"), on the
  // sweep's own matrices; empty: no sweep.
  std::vector<std::string> sweep_thresholds;
  bool help = false;
};

// Throws UsageError naming the bad option or value.
BenchOptions parse_options(int argc, const char* const argv[]);

// The --help text: options, exit codes and the byte model behind GB/s.
std::string help_text();

// True when a kernel of this name is selected by the filters.
bool kernel_selected(const std::vector<std::string>& filters, const std::string& kernel_name);

}  // namespace spmv::bench
