// Several gradings on one GPU (spmv-grade --gpu-share FILE, as
// tools/grade-class runs them), without one's work in another's timed
// stretch. Each grading is a member of the share, a slot of FILE; the
// slots are read and written under flock, and a slot whose process is gone
// is freed by the next member that looks.
//
// A member is *active* while it does anything on the GPU that is not timed:
// a runner creating its CUDA context or ending, the reference setting up a
// matrix, a correctness-only row's runner with the plugin loaded. It is
// *alone* while it times (from a scored row's first timed burst to its
// last, with the submission's runner alive in between). The rules:
//
//   - alone is granted once no other member is active or alone: nothing of
//     another student is alive on the GPU while a side of a row is timed;
//   - active is granted while no other member is alone or waiting to be
//     (a member waiting is not starved by the others' new work); a member
//     alone may also be active (its own rows' runners start and end as
//     they would without the share);
//   - of the members waiting to be alone, the earliest whose condition holds
//     goes first: one that is itself active (a row whose runner is loaded)
//     goes before an inactive earlier one, which would otherwise wait for it
//     forever.
//
// Every grant waited for ends: an activity never waits for a grant once
// begun, and a member alone ends its stretch without one. A member that
// stops (killed, crashed) is forgotten at the next look.
//
// Without FILE the share is the grading's own: every hold is granted at
// once.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <set>
#include <utility>

namespace spmv::grade {

class GpuShare {
 public:
  enum class Kind { kActive, kAlone };

  // A grant, released when destroyed (or by release()).
  class Hold {
   public:
    Hold() = default;
    Hold(GpuShare* share, Kind kind) : share_(share), kind_(kind) {}
    Hold(Hold&& other) noexcept : share_(std::exchange(other.share_, nullptr)), kind_(other.kind_) {}
    Hold& operator=(Hold&& other) noexcept {
      if (this != &other) {
        release();
        share_ = std::exchange(other.share_, nullptr);
        kind_ = other.kind_;
      }
      return *this;
    }
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;
    ~Hold() { release(); }
    [[nodiscard]] bool held() const { return share_ != nullptr; }
    [[nodiscard]] Kind kind() const { return kind_; }
    void release() {
      if (share_ != nullptr) std::exchange(share_, nullptr)->end(kind_);
    }

   private:
    GpuShare* share_ = nullptr;
    Kind kind_ = Kind::kActive;
  };

  // The grading's own: no other member.
  GpuShare() = default;
  // A member of the share kept in `file` (made if missing), whose waits
  // last at most `patience` (longer than any row of the gradings sharing
  // the GPU may take). Throws SetupError naming the file: one that is not
  // a regular file of this user, not a share's file, or whose slots are all
  // taken.
  explicit GpuShare(std::filesystem::path file, std::chrono::milliseconds patience = kPatience);
  ~GpuShare();
  GpuShare(const GpuShare&) = delete;
  GpuShare& operator=(const GpuShare&) = delete;

  // Waits for the grant (see above). A wait past `patience` (the share's
  // by default) throws SetupError: another grading held the GPU that long,
  // which no row of a working grader does.
  Hold active(std::chrono::milliseconds patience = std::chrono::milliseconds::zero());
  Hold alone(std::chrono::milliseconds patience = std::chrono::milliseconds::zero());

  // active() if granted now, else an empty Hold (a caller that must not
  // wait while it holds something else). A runner's start (`start`) is
  // not granted beside this member's own stretch either: it would lengthen
  // the stretch, which the others wait for. It is granted beside this
  // member's own work while no other member is alone, even if one waits to
  // be (that work holds it up anyway): a grading holding a runner for its
  // next row may wait for a start.
  Hold try_active(bool start = false);
  static constexpr std::chrono::microseconds kPoll{500};

  // Whether other gradings may share the GPU (a FILE was given).
  [[nodiscard]] bool shared() const { return fd_ >= 0; }
  [[nodiscard]] const std::filesystem::path& file() const { return file_; }

  // Slots of a share's file: at most this many gradings on one GPU.
  static constexpr int kSlots = 32;
  static constexpr std::chrono::milliseconds kPatience{std::chrono::minutes(10)};
  // The patience of gradings whose rows take at most `row_timeout_s`:
  // another grading's row (its timeout, its runner's end, its reference's
  // bursts) ends well within it, or that grader is stuck.
  static std::chrono::milliseconds patience_for(double row_timeout_s);

 private:
  struct Slot;
  struct Table;
  void end(Kind kind);
  // Under mutex_ and the file's lock: reads the table, frees the slots of
  // members gone, applies `change` to it, writes back; returns change's.
  template <typename Change>
  auto update(Change change);
  Hold wait_for(Kind kind, std::chrono::milliseconds patience, bool start = false);

  std::filesystem::path file_;
  std::chrono::milliseconds patience_ = kPatience;
  int fd_ = -1;
  int slot_ = -1;
  std::mutex mutex_;
  std::uint64_t start_time_ = 0;
  std::multiset<std::uint64_t> tickets_;  // this member's waits to be alone
};

}  // namespace spmv::grade
