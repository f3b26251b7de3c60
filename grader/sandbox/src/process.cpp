// Process: how the program ended, killing and freezing everything of a
// sandbox.
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

#include "internal.hpp"
#include "spmv/sandbox/sandbox.hpp"

namespace spmv::sandbox {
namespace {

long now_ms() {
  timespec now{};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

}  // namespace

Process::Process(Process&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      level_(other.level_),
      has_init_(other.has_init_),
      status_fd_(std::exchange(other.status_fd_, -1)),
      uid_(other.uid_),
      program_status_(other.program_status_),
      child_wait_status_(other.child_wait_status_),
      notes_(std::move(other.notes_)) {}

Process& Process::operator=(Process&& other) noexcept {
  if (this != &other) {
    kill_all();
    pid_ = std::exchange(other.pid_, -1);
    level_ = other.level_;
    has_init_ = other.has_init_;
    status_fd_ = std::exchange(other.status_fd_, -1);
    uid_ = other.uid_;
    program_status_ = other.program_status_;
    child_wait_status_ = other.child_wait_status_;
    notes_ = std::move(other.notes_);
  }
  return *this;
}

Process::~Process() {
  try {
    kill_all();
  } catch (...) {  // a destructor does not throw; kill_all() did what it could
  }
}

// Init's report: 4 bytes, the program's raw wait status; end of file when
// init ended without sending it.
void Process::read_status() {
  if (status_fd_ < 0 || program_status_) return;
  int status = 0;
  ssize_t n;
  do {
    n = read(status_fd_, &status, sizeof status);
  } while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(sizeof status)) program_status_ = ExitStatus::from_wait_status(status);
  if (n >= 0) {  // the report, or end of file: nothing more will come
    close(status_fd_);
    status_fd_ = -1;
  }
}

void Process::reap(bool block) {
  if (pid_ < 0 || child_wait_status_) return;
  int status = 0;
  pid_t reaped;
  do {
    reaped = waitpid(pid_, &status, block ? __WALL : (__WALL | WNOHANG));
  } while (reaped < 0 && errno == EINTR);
  if (reaped == pid_) child_wait_status_ = status;
  if (reaped < 0 && errno == ECHILD) child_wait_status_ = 0;  // reaped elsewhere (waitpid(-1) by the caller)
}

std::optional<ExitStatus> Process::poll() {
  if (program_status_ || pid_ < 0) return program_status_;
  if (has_init_) read_status();
  reap(false);
  if (child_wait_status_) {
    if (has_init_) read_status();
    // Without an init the child is the program; with one, an init that died
    // without a report took the program with it.
    if (!program_status_) program_status_ = ExitStatus::from_wait_status(*child_wait_status_);
  }
  return program_status_;
}

std::optional<ExitStatus> Process::wait(int timeout_ms) {
  const long deadline = now_ms() + timeout_ms;
  for (;;) {
    if (auto status = poll()) return status;
    const long left = deadline - now_ms();
    if (left <= 0) return std::nullopt;
    if (status_fd_ >= 0) {
      pollfd report{status_fd_, POLLIN, 0};
      ::poll(&report, 1, static_cast<int>(std::min(left, 50L)));
    } else {
      detail::sleep_ms(static_cast<int>(std::min(left, 2L)));
    }
  }
}

std::optional<ExitStatus> Process::kill_all() {
  if (pid_ < 0) return program_status_;
  if (has_init_) {
    // Init's death kills every process of its PID namespace.
    if (!child_wait_status_) kill(pid_, SIGKILL);
  } else {
    // Descendants that left the process group are reached while they are
    // still descendants (before the program dies and they are orphaned).
    // Frozen first, so no process forks or leaves while the tree is walked;
    // descendants that left the process group are reached while they are
    // still descendants (before the program dies and orphans them).
    signal_all(SIGSTOP);
    for (const pid_t pid : detail::descendants(pid_, detail::scan_processes())) kill(pid, SIGKILL);
    kill(-pid_, SIGKILL);
    if (!child_wait_status_) kill(pid_, SIGKILL);
    // Until no member of the process group (nor a descendant) is left alive:
    // a killed process takes a moment to die.
    const long deadline = now_ms() + 2000;
    for (;;) {
      const std::vector<detail::ProcEntry> processes = detail::scan_processes();
      std::vector<pid_t> alive = detail::descendants(pid_, processes);
      for (const detail::ProcEntry& process : processes) {
        if (process.pgrp == pid_ && !detail::is_dead(process.state)) alive.push_back(process.pid);
      }
      std::erase_if(alive, [&](pid_t pid) {
        const auto found =
            std::find_if(processes.begin(), processes.end(), [&](const auto& p) { return p.pid == pid; });
        return found == processes.end() || detail::is_dead(found->state) || (pid == pid_ && child_wait_status_);
      });
      if (alive.empty()) break;
      if (now_ms() > deadline) {
        notes_.push_back("kill_all: processes of the group survived 2 s of SIGKILL");
        break;
      }
      for (const pid_t pid : alive) kill(pid, SIGKILL);
      kill(-pid_, SIGKILL);
      detail::sleep_ms(1);
    }
  }
  if (uid_) {
    if (!kill_uid(*uid_).empty()) notes_.push_back("kill_all: processes of the uid survived 2 s of SIGKILL");
  }
  reap(true);
  read_status();
  if (!program_status_) {
    // With an init and no report, the program died with the namespace.
    program_status_ = has_init_ || !child_wait_status_ ? ExitStatus{true, 0, SIGKILL}
                                                       : ExitStatus::from_wait_status(*child_wait_status_);
  }
  if (status_fd_ >= 0) close(status_fd_);
  status_fd_ = -1;
  pid_ = -1;
  return program_status_;
}

void Process::signal_all(int signal) {
  if (pid_ < 0 || child_wait_status_) return;
  const bool stopping = signal == SIGSTOP;
  // Stopping is repeated until every process seen is stopped: one forked
  // between a scan and the signals is caught by the next round.
  for (int round = 0; round < (stopping ? 200 : 2); ++round) {
    if (uid_) detail::signal_uid(*uid_, signal);
    std::vector<detail::ProcEntry> processes = detail::scan_processes();
    std::vector<pid_t> targets = detail::descendants(pid_, processes);
    if (!has_init_) {
      targets.push_back(pid_);
      kill(-pid_, signal);
    }
    for (const pid_t pid : targets) kill(pid, signal);
    if (!stopping) continue;

    detail::sleep_ms(1);
    processes = detail::scan_processes();
    targets = detail::descendants(pid_, processes);
    if (!has_init_) targets.push_back(pid_);
    const bool all_stopped = std::all_of(processes.begin(), processes.end(), [&](const detail::ProcEntry& p) {
      const bool ours = (uid_ && p.ruid == *uid_) || (!has_init_ && p.pgrp == pid_) ||
                        std::find(targets.begin(), targets.end(), p.pid) != targets.end();
      return !ours || detail::is_stopped(p.state) || detail::is_dead(p.state);
    });
    if (all_stopped) return;
  }
}

void Process::stop() { signal_all(SIGSTOP); }
void Process::resume() { signal_all(SIGCONT); }

}  // namespace spmv::sandbox
