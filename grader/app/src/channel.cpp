#include "channel.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <new>
#include <set>
#include <stdexcept>
#include <utility>

namespace spmv::grade {
namespace {

// The y areas start on a page boundary after the report.
constexpr std::size_t kReportBytes = (sizeof(RowReport) + 4095) / 4096 * 4096;

std::size_t area_words(std::int64_t rows) { return 2 * kGuardWords + static_cast<std::size_t>(rows); }

static_assert(std::atomic<std::int32_t>::is_always_lock_free,
              "the stage field is shared between processes and must not need a lock");

// Every live region of this process (the grader is single-threaded).
std::set<const SharedRegion*>& live_regions() {
  static std::set<const SharedRegion*> regions;
  return regions;
}

}  // namespace

SharedRegion::SharedRegion(std::size_t bytes) : bytes_(bytes) {
  void* mapped = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) {
    throw std::runtime_error("mmap of " + std::to_string(bytes) + " shared bytes failed: " + std::strerror(errno));
  }
  data_ = mapped;
  live_regions().insert(this);
}

SharedRegion::SharedRegion(SharedRegion&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {
  if (data_ != nullptr) {
    live_regions().erase(&other);
    live_regions().insert(this);
  }
}

SharedRegion::~SharedRegion() {
  if (data_ != nullptr) {
    ::munmap(data_, bytes_);
    live_regions().erase(this);
  }
}

void SharedRegion::keep_only(const SharedRegion& kept) {
  // The objects stay as they are: in the child they belong to the parent's
  // stack frames, which are never unwound (the child ends with _exit).
  for (const SharedRegion* region : live_regions()) {
    if (region != &kept) ::munmap(region->data_, region->bytes_);
  }
}

void SharedRegion::set_writable(bool writable) const {
  ::mprotect(data_, bytes_, writable ? PROT_READ | PROT_WRITE : PROT_READ);
}

const char* describe(Stage stage) {
  switch (stage) {
    case Stage::kStarting: return "start-up";
    case Stage::kLoadingPlugins: return "loading the submission's plugin";
    case Stage::kLoadingReference: return "loading the reference plugin";
    case Stage::kStartingCuda: return "CUDA start-up";
    case Stage::kWaitingForTurn: return "the wait for its turn";
    case Stage::kUploading: return "the upload of the matrix";
    case Stage::kScratchSize: return "the scratch-size query";
    case Stage::kCusparse: return "the cuSPARSE timing";
    case Stage::kRun1: return "run 1 (first x)";
    case Stage::kRun2: return "run 2 (second x)";
    case Stage::kRun3: return "run 3 (first x again)";
    case Stage::kCheckingInputs: return "the check of the inputs";
    case Stage::kWarmup: return "the warm-up launches";
    case Stage::kTiming: return "the timed launches";
    case Stage::kDone: return "the end";
  }
  return "an unknown stage";
}

bool is_submission_stage(Stage stage) {
  switch (stage) {
    case Stage::kLoadingPlugins:  // the plugin's constructors run at load
    case Stage::kScratchSize:
    case Stage::kRun1:
    case Stage::kRun2:
    case Stage::kRun3:
    case Stage::kCheckingInputs:  // a kernel's sticky error surfaces at the next copy
    case Stage::kWarmup:
    case Stage::kTiming:
      return true;
    default:
      return false;
  }
}

RowChannel::RowChannel(std::int64_t rows)
    : rows_(rows),
      region_(kReportBytes + kRunsPerRow * area_words(rows) * sizeof(std::uint32_t)),
      report_(new (region_.data()) RowReport()) {}

std::span<std::uint32_t> RowChannel::area(int run) const {
  auto* first = reinterpret_cast<std::uint32_t*>(static_cast<char*>(region_.data()) + kReportBytes);
  return {first + static_cast<std::size_t>(run) * area_words(rows_), area_words(rows_)};
}

std::span<const float> RowChannel::y(int run) const {
  const auto words = area(run).subspan(kGuardWords, static_cast<std::size_t>(rows_));
  return {reinterpret_cast<const float*>(words.data()), words.size()};
}

std::span<const std::uint32_t> RowChannel::guard_before(int run) const { return area(run).first(kGuardWords); }

std::span<const std::uint32_t> RowChannel::guard_after(int run) const { return area(run).last(kGuardWords); }

void RowChannel::set_stage(Stage stage) const {
  report_->stage.store(static_cast<std::int32_t>(stage), std::memory_order_release);
}

Stage RowChannel::stage() const { return static_cast<Stage>(report_->stage.load(std::memory_order_acquire)); }

}  // namespace spmv::grade
