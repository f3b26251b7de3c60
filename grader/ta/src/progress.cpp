#include "progress.hpp"

#include <unistd.h>

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace spmv::ta {
namespace {

using Clock = std::chrono::steady_clock;

// On a terminal the status line appears once a case has taken this long.
constexpr std::chrono::seconds kTerminalDelay{2};
constexpr std::chrono::seconds kTerminalPeriod{1};

}  // namespace

Heartbeat::Heartbeat(std::ostream& err, bool terminal, std::chrono::duration<double> interval)
    : err_(err), terminal_(terminal), interval_(interval), thread_([this] { run(); }) {}

Heartbeat::~Heartbeat() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

bool Heartbeat::stderr_is_terminal() { return ::isatty(STDERR_FILENO) != 0; }

std::chrono::duration<double> Heartbeat::interval_from_environment(std::chrono::duration<double> fallback) {
  const char* given = std::getenv("SPMV_PROGRESS_SECONDS");
  if (given == nullptr || *given == '\0') return fallback;
  double seconds = 0;
  const std::string_view text(given);
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), seconds);
  if (error != std::errc{} || end != text.data() + text.size() || !(seconds > 0) || !std::isfinite(seconds)) {
    return fallback;
  }
  return std::chrono::duration<double>(seconds);
}

void Heartbeat::begin(const std::string& what) {
  const std::lock_guard lock(mutex_);
  what_ = what;
  phase_.clear();
  active_ = true;
  started_ = Clock::now();
  next_ = started_ + (terminal_ ? std::chrono::duration_cast<Clock::duration>(kTerminalDelay)
                                : std::chrono::duration_cast<Clock::duration>(interval_));
  wake_.notify_all();
}

void Heartbeat::phase(const std::string& phase) {
  const std::lock_guard lock(mutex_);
  phase_ = phase;
}

void Heartbeat::end() {
  const std::lock_guard lock(mutex_);
  active_ = false;
  if (status_shown_) {
    err_ << "\r\033[K" << std::flush;
    status_shown_ = false;
  }
}

void Heartbeat::print_locked() {
  const auto seconds = std::chrono::duration<double>(Clock::now() - started_).count();
  char elapsed[32];
  std::snprintf(elapsed, sizeof elapsed, seconds < 10 ? "%.1f s" : "%.0f s", seconds);
  const std::string text = "spmv-cases: " + what_ + (phase_.empty() ? "" : ": " + phase_) + " (" + elapsed + ")";
  if (terminal_) {
    err_ << "\r\033[K" << text << std::flush;
    status_shown_ = true;
  } else {
    err_ << text << std::endl;
  }
}

void Heartbeat::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    if (!active_) {
      wake_.wait(lock, [this] { return stopping_ || active_; });
      continue;
    }
    const auto next = next_;
    if (wake_.wait_until(lock, next, [this, next] { return stopping_ || !active_ || next_ != next; })) continue;
    print_locked();
    next_ = Clock::now() + (terminal_ ? std::chrono::duration_cast<Clock::duration>(kTerminalPeriod)
                                      : std::chrono::duration_cast<Clock::duration>(interval_));
  }
}

}  // namespace spmv::ta
