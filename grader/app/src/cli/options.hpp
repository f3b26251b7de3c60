// spmv-grade's options: command line, then an optional config file in the
// same syntax (Boost.Program_options); a value on the command line wins.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "spmv/cli/command_line.hpp"
#include "spmv/runner/timing.hpp"

namespace spmv::grade {

// A bad option, value or config file: one line naming the option.
using cli::UsageError;

// Paths that depend on where the grader was built or installed.
struct Defaults {
  std::filesystem::path student_plugin;
  std::filesystem::path reference_plugin;
  std::filesystem::path host_reference_plugin;  // for host-memory submissions
  std::filesystem::path cases;
  std::filesystem::path cache_dir;
  std::filesystem::path runner;            // bin/spmv-runner
  std::filesystem::path reference_runner;  // bin/spmv-reference-runner
};

// Found relative to the executable (<build>/bin/spmv-grade): plugins in
// <build>/plugins, the generator cache in <build>/cache; the public cases
// of the source tree.
Defaults defaults_for_executable(const std::filesystem::path& executable);

struct Options {
  std::filesystem::path submission;
  bool submission_given = false;                   // by --submission, not the default
  std::optional<std::filesystem::path> reference;  // unset: by the submission's memory space
  std::vector<std::filesystem::path> cases;
  bool cases_given = false;               // by --cases, not the default public cases
  std::vector<std::string> kernels;       // empty: the policy's graded kernels
  std::vector<std::string> case_filters;  // shell patterns; empty: every case
  std::optional<std::filesystem::path> policy;
  std::optional<std::uint64_t> seed;       // unset: a fresh one, reported
  std::optional<std::string> secret_seed;  // from --secret-seed-file or a config file, never argv
  std::optional<std::string> isolation;    // --isolation LEVEL
  bool allow_unisolated = false;
  bool resume = false;                           // keep the finished rows of --output-dir's rows.jsonl
  std::optional<std::filesystem::path> planned;  // --aggregate: the row files to read
  double timeout_s = 60;
  // Timing by chained bursts (rows/burst_timing.hpp): bursts per side, at
  // least and at most; untimed bursts first; a burst's length on the GPU.
  runner::TimingOptions timing{.min_runs = 4, .max_runs = 10, .warmup_runs = 1, .min_time_ms = 3};
  std::filesystem::path output_dir = "spmv-results";
  std::filesystem::path cache_dir;
  std::optional<std::filesystem::path> journal;  // CTest mode: the folder of the kernels' journals
  std::optional<std::filesystem::path> aggregate;
  std::optional<std::filesystem::path> show_row;  // a journal: print one row's verdict, exit by it
  std::uint64_t format_limit_bytes = std::uint64_t{4} << 30;
  int device = 0;
  int prestart = 5;                                     // runners started up ahead of their row
  std::optional<std::filesystem::path> gpu_share;       // --gpu-share: the GPU's share with other gradings
  std::optional<std::filesystem::path> cusparse_cache;  // --cusparse-cache: cuSPARSE's times of the cases
  bool cusparse = true;
  bool quiet = false;
  bool list = false;
  // --show-policy: print the effective policy and exit; "text" (a policy
  // file) or "json" (--show-policy=json, or --show-policy --json).
  std::optional<std::string> show_policy;
  bool strict_gpu = false;
  bool memcheck = false;  // rerun each kernel's smallest cases under compute-sanitizer
};

struct ParsedCommand {
  bool help = false;
  std::string help_text;
  Options options;
};

// Throws UsageError. argv[0] is skipped.
ParsedCommand parse_command_line(int argc, const char* const* argv, const Defaults& defaults);

// A --submission that names no file, or a folder, is the caller's mistake
// (a usage error), not a submission that scores 0; a file that exists but
// does not load is the submission's own problem, judged row by row.
// `given`: by --submission, not the default. Throws UsageError.
void check_submission_path(const std::filesystem::path& submission, bool given);

}  // namespace spmv::grade
