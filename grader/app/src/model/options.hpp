// What spmv-grade is asked to do: its options, as the command line and the
// config file gave them (cli/options.hpp reads them), and the paths that
// depend on where it was built or installed.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "spmv/runner/timing.hpp"

namespace spmv::grade {

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
  // --gpu-cache: the GPU's copy bandwidth and the reference's windows, for
  // the gradings after on the same GPU.
  std::optional<std::filesystem::path> gpu_cache;
  bool cusparse = true;
  bool quiet = false;
  bool list = false;
  // --show-policy: print the effective policy and exit; "text" (a policy
  // file) or "json" (--show-policy=json, or --show-policy --json).
  std::optional<std::string> show_policy;
  bool strict_gpu = false;
  bool memcheck = false;  // rerun each kernel's smallest cases under compute-sanitizer
};

}  // namespace spmv::grade
