// One graded (kernel, case) pair: what happened and what was measured.
// Every report (console, results.json, summary.md, rows.jsonl) is made from
// a list of these; rows.jsonl holds them verbatim so a later --aggregate run
// can rebuild the reports and the score.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace spmv::grade {

enum class Verdict {
  kPass,
  kWrong,             // the result, y's guard zones or the inputs are wrong
  kCrash,             // signal, exit(), failed launch, CUDA error
  kTimeout,           // killed at the time limit
  kNotImplemented,    // the kernel is missing or returns SPMV_NOT_IMPLEMENTED
  kNotApplicable,     // the format cannot hold the matrix (not held against the submission)
  kSkipped,           // no GPU for a device plugin
  kLoadError,         // the submission's plugin cannot be loaded
  kForbiddenLibrary,  // a kernel of a vendor library or of a module loaded at run time ran
  kCaseError,         // the case cannot be read or converted (not held against the submission)
  kGraderError,       // the grader itself failed on this row (not held against the submission)
  kNotRun,            // never finished: the grader was stopped first
};

// "pass", "not implemented", ... for people.
const char* describe(Verdict verdict);
// "pass", "not_implemented", ... in JSON.
const char* token(Verdict verdict);
// Throws std::invalid_argument for an unknown token.
Verdict verdict_from_token(const std::string& token);
// Whether the row's points count towards the maximum score.
bool counts_towards_score(Verdict verdict);
// Whether the row is a success for the exit code and CTest.
bool is_success(Verdict verdict);

// The correctness runs of a row's kernel.
inline constexpr int kRunsPerRow = 3;  // x1, x2, x1 again

// Which x vector (0 or 1) run `run` uses.
inline int x_of_run(int run) { return run == 1 ? 1 : 0; }

// A row of the check against the golden result, for reports.
struct RowSample {
  std::int64_t row = -1;
  double expected = 0;
  double got = 0;
  double allowed = 0;
};

struct RowResult {
  // Identity, fixed when the run is planned.
  std::string kernel;
  std::string format;    // "csr", ...
  int kernel_order = 0;  // position in the policy's kernel list
  std::string case_name;
  int case_order = 0;       // position in the full case list of its source
  std::string case_source;  // the --cases entry the case came from
  std::string case_why;     // what the case exercises (the manifest's `why`)
  double case_weight = 1;   // from the manifest (the policy may override)
  std::string visibility = "visible";
  std::vector<std::string> tags;
  std::int64_t rows = 0, cols = 0, nnz = 0;

  // Outcome.
  Verdict verdict = Verdict::kNotRun;
  // Short machine-readable reason: for wrong, the likely cause
  // ("unwritten_rows", "missing_term", "out_of_bounds_write",
  // "modified_input", "race", ...); for crash, "signal", "exit",
  // "launch_error", "cuda_error"; empty for pass.
  std::string cause;
  std::string summary;                    // one line: "<verdict>: <explanation>"
  std::string detail;                     // more explanation, never repeating the summary
  std::string stage;                      // where the submission was when it failed
  std::optional<double> max_error_ratio;  // worst |error| / allowed over every checked run
  std::optional<RowSample> first_bad_row, worst_bad_row;

  // Timing (correct rows only).
  std::optional<double> submission_ms, reference_ms, cusparse_ms;
  std::optional<double> speedup;    // reference_ms / submission_ms
  std::optional<double> gbps;       // compulsory bytes / submission time
  std::optional<double> copy_gbps;  // device-to-device copy bandwidth of the run
  std::optional<double> percent_of_copy;
  std::optional<double> cusparse_gbps;
  std::int64_t compulsory_bytes = 0;
  int submission_samples = 0, reference_samples = 0;
  int checked_launches = 0;  // links of the timed bursts the grader checked in full
  // Why the row's speed is not scored (its reference launch is under the
  // policy's timing.min_reference_us); empty when it is.
  std::string correctness_only;
  // Set by the grader's checks: timed_result_wrong, implausible_timing,
  // speedup_review, forbidden_library. A flagged row earns no speed credit
  // unless the policy accepts its flags.
  std::vector<std::string> flags;
  // Those of `flags` the policy accepts ([flags] accept): they withhold
  // nothing.
  std::vector<std::string> accepted_flags;
  // How much of each timing bound the row used (value / limit: 1 or more is
  // a flag): floor, events, speedup (timing_checks.hpp).
  std::map<std::string, double> bound_use;
  // The medians a side's time is made of (TimingRecord::parts_ms): whole
  // bursts and calibration bursts of each side, the runners' own events,
  // the reference before and after the submission, the bursts' spread.
  std::map<std::string, double> timing_parts_ms;
  // Every burst behind them, whole, by the grader's clock, and the links a
  // burst held (TimingRecord::bursts_ms).
  std::map<std::string, std::vector<double>> timing_bursts_ms;
  int burst_links = 0;
  // Where the row's grading time went, by phase (row_record.hpp).
  std::map<std::string, double> phase_ms;

  // Context.
  std::optional<std::uint64_t> x_seed;  // absent when the run used a secret seed
  std::string log_file;                 // the submission's captured output
  std::string submission_output;        // its beginning, for reports
};

}  // namespace spmv::grade
