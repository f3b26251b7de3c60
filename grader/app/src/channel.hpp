// The result channel from a row's child process to the grader: an anonymous
// shared mapping the parent creates before fork(). The child writes raw data
// only (y of each run with its guard zones, what it found changed in the
// inputs, timings, launch status, how far it got); the parent computes the
// verdict from it. The submission's stdout is never read for results.
//
// While submission code runs, the child makes the mapping read-only
// (SubmissionCall), so a stray host-side write faults instead of forging
// a result.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace spmv::grade {

// An anonymous MAP_SHARED region, unmapped on destruction. Move-only.
class SharedRegion {
 public:
  // In a freshly forked child: unmaps every region the child inherited
  // except `kept`. A child forked ahead of its turn shares the process
  // with the regions of the rows still running or waiting; the code it
  // runs (a plugin's constructors) must not reach their results.
  static void keep_only(const SharedRegion& kept);

  explicit SharedRegion(std::size_t bytes);
  SharedRegion(SharedRegion&& other) noexcept;
  SharedRegion& operator=(SharedRegion&&) = delete;
  SharedRegion(const SharedRegion&) = delete;
  ~SharedRegion();
  [[nodiscard]] void* data() const { return data_; }
  [[nodiscard]] std::size_t bytes() const { return bytes_; }
  void set_writable(bool writable) const;

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// Copies `text` into a fixed buffer, truncated and NUL-terminated.
template <std::size_t N>
void store_text(char (&buffer)[N], std::string_view text) {
  const std::size_t length = text.size() < N - 1 ? text.size() : N - 1;
  for (std::size_t i = 0; i < length; ++i) buffer[i] = text[i];
  buffer[length] = '\0';
}

// Where a child is; a crash is reported as "during <stage>".
enum class Stage : std::int32_t {
  kStarting,
  kLoadingPlugins,    // the submission's plugin (its constructors run)
  kLoadingReference,
  kStartingCuda,
  kWaitingForTurn,    // started up; waiting for the row before it to finish
  kUploading,
  kScratchSize,
  kCusparse,
  kRun1,
  kRun2,
  kRun3,
  kCheckingInputs,
  kWarmup,
  kTiming,
  kDone,
};

const char* describe(Stage stage);
// Stages in which the submission's code runs (or its effects surface).
bool is_submission_stage(Stage stage);

// What the child concluded about its own run, set just before kDone.
enum class Outcome : std::int32_t {
  kNone,
  kCompleted,           // runs done (timed if the result was correct)
  kNotImplemented,      // a launch returned SPMV_NOT_IMPLEMENTED
  kLaunchFailed,        // a launch returned a cudaError_t
  kCudaError,           // a CUDA call failed (sticky errors of a kernel included)
  kSubmissionUnusable,  // the submission plugin failed to load or lacks the kernel
  kGraderFailure,       // the grader's own code failed (message says why)
};

inline constexpr int kRunsPerRow = 3;  // x1, x2, x1 again
// Guard zone on each side of y: 4 KiB of a pattern no kernel writes by chance.
inline constexpr std::size_t kGuardWords = 1024;
inline constexpr std::uint32_t kGuardBits = 0x6b8b4567;

struct RowReport {
  // The one field the grader writes and the child reads: set before the
  // child is started, since it depends on the rows finished before.
  std::atomic<std::int32_t> measure_cusparse{0};
  std::atomic<std::int32_t> stage{static_cast<std::int32_t>(Stage::kStarting)};
  Outcome outcome = Outcome::kNone;
  std::int32_t status = 0;  // the failing launch's return value, or the CUDA error code
  std::int32_t failed_stage = 0;  // the Stage a failure happened in (stage is kDone by then)
  std::int32_t runs_written = 0;
  std::int32_t timed = 0;
  double submission_ms = 0;
  double reference_ms = 0;
  std::int32_t submission_samples = 0;
  std::int32_t reference_samples = 0;
  std::int32_t cusparse_timed = 0;
  double cusparse_ms = 0;
  std::int32_t cusparse_samples = 0;
  char cusparse_note[256] = {};
  char modified_inputs[512] = {};  // names of input arrays found changed, comma-separated
  char message[2048] = {};
};

// The region of one row: the report, then kRunsPerRow copies of y, each
// with its guard zones (guard, rows values, guard) as the kernel left them.
class RowChannel {
 public:
  explicit RowChannel(std::int64_t rows);

  [[nodiscard]] RowReport& report() const { return *report_; }
  [[nodiscard]] std::int64_t rows() const { return rows_; }
  // guard + y + guard of a run, for the child to fill.
  [[nodiscard]] std::span<std::uint32_t> area(int run) const;
  [[nodiscard]] std::span<const float> y(int run) const;
  [[nodiscard]] std::span<const std::uint32_t> guard_before(int run) const;
  [[nodiscard]] std::span<const std::uint32_t> guard_after(int run) const;
  void set_stage(Stage stage) const;
  [[nodiscard]] Stage stage() const;
  [[nodiscard]] const SharedRegion& region() const { return region_; }

 private:
  std::int64_t rows_;
  SharedRegion region_;
  RowReport* report_;
};

// Makes the channel read-only for the lifetime of the object: wrap every
// call into submission code.
class SubmissionCall {
 public:
  explicit SubmissionCall(const SharedRegion& region) : region_(region) { region_.set_writable(false); }
  ~SubmissionCall() { region_.set_writable(true); }
  SubmissionCall(const SubmissionCall&) = delete;
  SubmissionCall& operator=(const SubmissionCall&) = delete;

 private:
  const SharedRegion& region_;
};

}  // namespace spmv::grade
