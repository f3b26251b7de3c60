// The optional memcheck pass (spmv-grade --memcheck): each graded kernel
// runs its three runs again on the smallest cases, in a runner started under
// compute-sanitizer (memcheck; racecheck too for csr_vector, whose warps
// share memory). What the sanitizer finds is read from the report file it
// writes beside the runner's folder, where the runner cannot write, never
// from anything the submission prints; each finding makes the row wrong,
// naming the kernel, the kind of access and the address.
//
// The sanitizer's library runs inside the submission's process, so a
// hostile submission could silence it: this finds honest mistakes, it does
// not prove their absence.
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cases/case_data.hpp"
#include "runners/runner_client.hpp"

namespace spmv::grade {

// How many of the smallest cases (by entries, among the graded ones) a
// kernel is checked on.
inline constexpr std::size_t kMemcheckCases = 3;

struct SanitizerFinding {
  std::string kind;     // "Invalid __global__ read of size 4 bytes", "Race reported between ..."
  std::string kernel;   // the kernel's name, without its parameters
  std::string address;  // "0x7f3a...", when the report gives one
};

struct SanitizerReport {
  bool complete = false;  // the report ends with the sanitizer's summary
  int errors = 0;         // as the summary counts them
  std::vector<SanitizerFinding> findings;
};

// Reads a compute-sanitizer report (its --log-file).
SanitizerReport parse_sanitizer_report(std::string_view text);

// One line for people: "memcheck: Invalid __global__ read of size 4 bytes
// in kernel k at 0x..., and 11 more errors".
std::string describe_findings(const std::string& tool, const SanitizerReport& report);

// compute-sanitizer: beside nvcc on PATH, under $CUDA_HOME or /usr/local/cuda.
std::optional<std::filesystem::path> find_compute_sanitizer();

struct MemcheckOutcome {
  bool ran = false;     // the runs finished and the report is complete
  std::string problem;  // why not, when it did not
  SanitizerReport report;
};

// Runs `kernel` three times on `prepared` (x1, x2, x1 again) in a runner of
// `spec` under `sanitizer`'s `tool`.
MemcheckOutcome run_under_sanitizer(RunnerSpec spec, const std::filesystem::path& sanitizer, const std::string& tool,
                                    PreparedCase& prepared, const std::string& kernel, spmv_format format,
                                    double timeout_s);

}  // namespace spmv::grade
