// Keeps the GPU quiet while the grader times bursts: no runner creates its
// CUDA context then. A context being made (the driver's set-up on the GPU,
// a hundred milliseconds or more) slows every burst around it, and would
// slow one side of a row and not the other. Starts wait while bursts are
// timed; timed bursts first wait for the starts under way. Both waits are
// bounded, so a start that hangs or a timing that needs a new reference
// runner slows the grading instead of stopping it.
//
// A row also reserves the GPU from its beginning to the end of its first
// timed bursts: no start begins then, so none is half done when those
// bursts come (one begun at the row's beginning held them up by about a
// hundred milliseconds, on most rows); starts go in the row's stretches
// without timing after them instead.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <utility>

namespace spmv::grade {

class QuietGpu {
 public:
  // While a Hold lives: a start under way, or a quiet period.
  class Hold {
   public:
    Hold() = default;
    Hold(QuietGpu* gate, int QuietGpu::*count) : gate_(gate), count_(count) {}
    Hold(Hold&& other) noexcept : gate_(std::exchange(other.gate_, nullptr)), count_(other.count_) {}
    Hold& operator=(Hold&& other) noexcept {
      if (this != &other) {
        release();
        gate_ = std::exchange(other.gate_, nullptr);
        count_ = other.count_;
      }
      return *this;
    }
    Hold(const Hold&) = delete;
    Hold& operator=(const Hold&) = delete;
    ~Hold() { release(); }
    [[nodiscard]] bool held() const { return gate_ != nullptr; }
    void release() {
      if (gate_ == nullptr) return;
      {
        const std::lock_guard lock(gate_->mutex_);
        --(gate_->*count_);
      }
      gate_->changed_.notify_all();
      gate_ = nullptr;
    }

   private:
    QuietGpu* gate_ = nullptr;
    int QuietGpu::*count_ = nullptr;
  };

  // A runner's start-up (until its CUDA context is made): waits while a
  // quiet period or a reservation lasts, at most `patience`.
  Hold start(std::chrono::milliseconds patience) {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, patience, [this] { return quiet_ == 0 && reserved_ == 0; });
    ++starting_;
    return {this, &QuietGpu::starting_};
  }

  // A reservation: no start begins until it ends; nothing waits for the
  // starts under way.
  Hold reserve() {
    const std::lock_guard lock(mutex_);
    ++reserved_;
    return {this, &QuietGpu::reserved_};
  }

  // A quiet period: no start begins until it ends; first waits for the
  // starts under way, at most `patience`.
  Hold quiet(std::chrono::milliseconds patience) {
    std::unique_lock lock(mutex_);
    ++quiet_;
    changed_.wait_for(lock, patience, [this] { return starting_ == 0; });
    return {this, &QuietGpu::quiet_};
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  int starting_ = 0;
  int quiet_ = 0;
  int reserved_ = 0;
};

}  // namespace spmv::grade
