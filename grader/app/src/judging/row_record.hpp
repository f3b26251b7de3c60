// What the grader saw of one row, step by step: where the submission's
// runner was (the step the grader had asked for, never the runner's own
// word), how it ended, what it replied, the result area it wrote y into, and
// the timings with the grader's checks on them. verdict.cpp judges a row from
// this alone.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/row.hpp"
#include "runners/gpu_share.hpp"
#include "runners/runner_client.hpp"
#include "spmv/runner/protocol.hpp"

namespace spmv::grade {

// The step a row was in; a crash is reported as "during <stage>".
enum class Stage : std::int32_t {
  kStarting,        // the runner's start-up (CUDA), before any submission code
  kLoadingPlugins,  // the submission's plugin (its constructors run)
  kUploading,       // the matrix, x, y and the scratch size
  kCusparse,
  kRun1,
  kRun2,
  kRun3,
  kCapturing,  // the launch captured into a burst's graph (its host code runs)
  kTiming,
  kCheckingTimed,  // a burst's links copied out for their check
  kDone,
};

const char* describe(Stage stage);
// Stages in which the submission's code runs (or its effects surface).
bool is_submission_stage(Stage stage);

// A result area as the runner left it: for each slot, guard + y + guard.
class ResultView {
 public:
  ResultView(const std::uint32_t* words, std::int64_t rows) : words_(words), rows_(rows) {}
  // A copy of the slots from `first_slot` on alone: `words` holds slot
  // first_slot, and the slots before it are not there to be read.
  ResultView(const std::uint32_t* words, std::int64_t rows, int first_slot)
      : words_(words), rows_(rows), first_slot_(first_slot) {}
  [[nodiscard]] std::int64_t rows() const { return rows_; }
  [[nodiscard]] std::span<const float> y(int slot) const;
  [[nodiscard]] std::span<const std::uint32_t> guard_before(int slot) const;
  [[nodiscard]] std::span<const std::uint32_t> guard_after(int slot) const;

 private:
  [[nodiscard]] const std::uint32_t* slot_start(int slot) const;
  const std::uint32_t* words_;
  std::int64_t rows_;
  int first_slot_ = 0;
};

// Timing of a correct row, and what the grader's checks found in it. Every
// time here is per launch and comes from the grader's own clock around
// chained bursts (spmv/runner/chain.hpp), less the same runner's bursts
// without the launch; the runners' own events are kept as diagnostics.
struct TimingRecord {
  bool timed = false;
  double submission_ms = 0, reference_ms = 0;
  int submission_samples = 0, reference_samples = 0;  // bursts timed
  // One of the submission's whole bursts by the grader's clock and by its
  // runner's own CUDA events, compared, never graded: the burst whose
  // events came closest to the clock. Something else on the machine
  // lengthens some bursts by the clock alone; a forged timer shortens the
  // events of every burst.
  double submission_burst_ms = 0, submission_event_burst_ms = 0;
  int checked_launches = 0;                 // links checked in full
  std::string wrong_timed_launch;           // a checked link's result was wrong: what
  std::vector<std::string> flags;           // implausible_timing, speedup_review, ...
  std::vector<std::string> flag_reasons;    // one line per flag, for people
  std::map<std::string, double> bound_use;  // value / limit of each bound checked
  // The medians behind the times, for review (whole bursts, events per
  // launch, the reference before the plugin was loaded and after its runner
  // ended, the bursts' spread).
  std::map<std::string, double> parts_ms;
  // Every burst by the grader's clock, whole (submission, reference_before,
  // reference_after, calibration), and the links each held: the samples the
  // times above are made of.
  std::map<std::string, std::vector<double>> bursts_ms;
  int links = 0;
  // Too short to score by speed (the policy's min_reference_us), by the
  // reference's pilot (parts_ms's reference_pilot_link) or its bursts
  // before: timed without the quiet GPU or the reference's bursts after.
  bool short_row = false;
};

struct RowRecord {
  Stage stage = Stage::kStarting;  // the step the row was in when it ended
  bool completed = false;          // the runs (and timing, if correct) finished
  // A reply that was not kOk: its kind, status and message.
  std::optional<runner::ReplyKind> refused;
  int status = 0;
  std::string message;
  // How the submission's runner ended, when it ended before the row did.
  RunnerEnd end;
  // The grader's own failure (the reference runner or the grader), if any.
  std::string grader_failure;
  // The submission's results (a view of `result_memory`, which it keeps).
  std::shared_ptr<const ResultMemory> result_memory;
  std::optional<ResultView> results;
  int runs = kRunsPerRow;       // the checked runs whose y `results` holds (the first `runs` of them)
  std::string modified_inputs;  // from the runs' replies, comma-separated
  // `results`' runs judged correct already, by the grader, when they were
  // run (a kernel's step 1: the same y, no input modified), and their
  // largest error over the allowed: judging does not check them again.
  std::optional<double> runs_correct_max_ratio;
  TimingRecord timing;
  std::optional<double> cusparse_ms;
  // The first kernel of a vendor library or of a module the plugin did not
  // hold that ran during the submission's calls (the runner's launch
  // recorder, CUPTI), and why launches were not recorded, if they were not.
  std::string foreign_kernel;
  std::string recorder_note;
  std::filesystem::path log_file;
  // Where the row's output begins in log_file: a runner kept for several
  // rows writes all of theirs into the log of the first.
  std::uintmax_t log_offset = 0;
  // Wall-clock milliseconds the grader spent in each phase of the row
  // (waiting for the runner, cuSPARSE, the reference, ...): where a
  // grading's time goes.
  std::map<std::string, double> phase_ms;
};

}  // namespace spmv::grade
