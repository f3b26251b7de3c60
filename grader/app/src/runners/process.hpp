// Running a piece of the grader's own code in a forked child process with a
// time limit, its stdout and stderr captured in a log file: the GPU check
// (gpu_probe.cpp). Never plugin code: submissions and the reference run in
// runners (runner_client.hpp).
//
// fork() without exec: the child inherits the parent's case data
// copy-on-write, so a matrix read and converted once serves every child.
// The parent never initializes CUDA, which is what makes fork safe; CUDA is
// started in each child. The child runs in its own process group, is killed
// with the parent (PR_SET_PDEATHSIG), and at the time limit its whole group
// is killed, so a hung kernel or a process the submission spawned cannot
// outlive its row.
//
// A child may be forked ahead of its turn (PendingChild): it does its
// start-up at once, while an earlier child still runs, then blocks until
// the parent starts it. Starting CUDA costs a fraction of a second per
// process, which is most of a small row's time; done ahead, it overlaps
// the previous row instead of adding to it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

namespace spmv::grade {

// An anonymous MAP_SHARED region a forked child writes its findings into;
// unmapped on destruction.
class SharedRegion {
 public:
  explicit SharedRegion(std::size_t bytes);
  ~SharedRegion();
  SharedRegion(const SharedRegion&) = delete;
  SharedRegion& operator=(const SharedRegion&) = delete;
  [[nodiscard]] void* data() const { return data_; }

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

struct ChildExit {
  enum class Kind { kExited, kSignaled, kTimedOut };
  Kind kind = Kind::kExited;
  int code = 0;        // exit status, for kExited
  int signal = 0;      // for kSignaled
  double seconds = 0;  // from start() to the end
};

// A forked child that has run (or is running) start_up() and waits for
// start() before it runs body(). Its time limit counts from start(), so a
// start-up done ahead is not charged to the row, and one still going on at
// start() is.
//
// In the child, start_up() and body() run with stdout and stderr in the log
// file; the child ends with _exit(0) after body() returns (no atexit
// handlers or destructors of the parent's objects run twice), or _exit(70)
// if either throws. A child whose parent never starts it, because the
// parent stopped early or died, never runs body(): the destructor kills
// its process group and reaps it, and a dead parent's child gets SIGKILL
// (PR_SET_PDEATHSIG) or, failing that, finds the start channel closed and
// ends.
class PendingChild {
 public:
  PendingChild(const std::function<void()>& start_up, const std::function<void()>& body,
               const std::filesystem::path& log_file);
  ~PendingChild();
  PendingChild(const PendingChild&) = delete;
  PendingChild& operator=(const PendingChild&) = delete;

  [[nodiscard]] pid_t pid() const { return pid_; }
  // Lets the child run body(); its time limit starts now. Once only.
  void start();
  // After start(): waits for the child to end, at most timeout_s seconds
  // from start(), then kills its process group (whatever the submission
  // left running in it too) and reaps it. Once only.
  ChildExit wait(double timeout_s);

 private:
  pid_t pid_ = -1;
  int start_fd_ = -1;  // the parent's end of the start channel, until start()
  bool reaped_ = false;
  std::chrono::steady_clock::time_point started_;
};

// A child forked, started at once and waited for: body() within timeout_s.
ChildExit run_isolated(const std::function<void()>& body, double timeout_s, const std::filesystem::path& log_file);

// "segmentation fault (SIGSEGV)", "abort (SIGABRT)", ...
std::string describe_signal(int signal);
// "was killed by a segmentation fault (SIGSEGV)", "did not finish within
// 60 s", "exited with status 3": for a child that did not get to its end.
std::string describe_exit(const ChildExit& exit, double timeout_s);

}  // namespace spmv::grade
