#include "runners/process.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

namespace spmv::grade {
namespace {

// Exit status of a child whose grader code threw (distinct from the
// submission's own exit() calls, which the stage field tells apart anyway),
// or that found its start channel closed without being started.
constexpr int kChildInternalFailure = 70;

// The parent's ends of the start channels of children not started yet. A
// child forked later inherits them and closes them at once: code running in
// it must not be able to start another child early.
std::vector<int>& unstarted_channels() {
  static std::vector<int> fds;
  return fds;
}

void forget_channel(int fd) {
  auto& fds = unstarted_channels();
  fds.erase(std::remove(fds.begin(), fds.end(), fd), fds.end());
}

void redirect_output(const std::filesystem::path& log_file) {
  const int log = ::open(log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  const int null_input = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (log < 0 || null_input < 0) ::_exit(kChildInternalFailure);
  ::dup2(null_input, STDIN_FILENO);
  ::dup2(log, STDOUT_FILENO);
  ::dup2(log, STDERR_FILENO);
  ::close(log);
  ::close(null_input);
}

// Blocks until the parent sends the start byte; ends the child if the
// parent closed its end (or died) without sending it.
void wait_for_start(int fd) {
  char start = 0;
  ssize_t got = 0;
  do {
    got = ::read(fd, &start, 1);
  } while (got < 0 && errno == EINTR);
  if (got != 1) ::_exit(kChildInternalFailure);
  ::close(fd);
}

[[noreturn]] void child_main(const std::function<void()>& start_up, const std::function<void()>& body, pid_t parent,
                             const std::filesystem::path& log, int start_fd) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The parent may have died between fork() and prctl().
  if (::getppid() != parent) ::_exit(kChildInternalFailure);
  for (const int fd : unstarted_channels()) ::close(fd);
  redirect_output(log);
  try {
    start_up();
    wait_for_start(start_fd);
    body();
  } catch (...) {
    ::_exit(kChildInternalFailure);
  }
  std::fflush(stdout);
  std::fflush(stderr);
  ::_exit(0);
}

void kill_group(pid_t child) {
  ::kill(-child, SIGKILL);
  ::kill(child, SIGKILL);  // in case it had not reached setpgid yet
}

int reap(pid_t child) {
  int status = 0;
  while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

SharedRegion::SharedRegion(std::size_t bytes) : bytes_(bytes) {
  void* mapped = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mapped == MAP_FAILED) {
    throw std::runtime_error("mmap of " + std::to_string(bytes) + " shared bytes failed: " + std::strerror(errno));
  }
  data_ = mapped;
}

SharedRegion::~SharedRegion() { ::munmap(data_, bytes_); }

PendingChild::PendingChild(const std::function<void()>& start_up, const std::function<void()>& body,
                           const std::filesystem::path& log_file) {
  int channel[2] = {-1, -1};
  // A socket rather than a pipe: sending to a child that already died
  // fails with EPIPE under MSG_NOSIGNAL instead of raising SIGPIPE here.
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, channel) != 0) {
    throw std::runtime_error(std::string("socketpair failed: ") + std::strerror(errno));
  }
  // Buffered output would otherwise be written twice, once by each process.
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = ::getpid();
  pid_ = ::fork();
  if (pid_ < 0) {
    const int error = errno;
    ::close(channel[0]);
    ::close(channel[1]);
    throw std::runtime_error(std::string("fork failed: ") + std::strerror(error));
  }
  if (pid_ == 0) {
    ::close(channel[0]);
    child_main(start_up, body, parent, log_file, channel[1]);
  }
  ::setpgid(pid_, pid_);  // both sides set it: whichever runs first wins the race
  ::close(channel[1]);
  start_fd_ = channel[0];
  unstarted_channels().push_back(start_fd_);
}

PendingChild::~PendingChild() {
  if (start_fd_ >= 0) {
    forget_channel(start_fd_);
    ::close(start_fd_);
  }
  if (!reaped_) {
    kill_group(pid_);
    reap(pid_);
  }
}

void PendingChild::start() {
  const char go = 1;
  // A child that died already cannot take it; how it ended is its result.
  static_cast<void>(::send(start_fd_, &go, 1, MSG_NOSIGNAL));
  forget_channel(start_fd_);
  ::close(start_fd_);
  start_fd_ = -1;
  started_ = std::chrono::steady_clock::now();
}

ChildExit PendingChild::wait(double timeout_s) {
  ChildExit result;
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  };
  // Polling with a short, growing sleep: quick rows end within a millisecond
  // of finishing, long ones cost little CPU.
  auto pause = std::chrono::microseconds(200);
  while (true) {
    // WNOWAIT leaves the child a zombie: its pid, and so its process group
    // id, cannot be reused before the group is killed below.
    siginfo_t info{};
    const int polled = ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT);
    if (polled == 0 && info.si_pid == pid_) break;
    if (polled < 0 && errno != EINTR) throw std::runtime_error(std::string("waitid failed: ") + std::strerror(errno));
    if (elapsed() >= timeout_s) {
      kill_group(pid_);
      reap(pid_);
      reaped_ = true;
      result.kind = ChildExit::Kind::kTimedOut;
      result.seconds = elapsed();
      return result;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(20000));
  }
  // Whatever the submission may have left running in the group goes too.
  ::kill(-pid_, SIGKILL);
  const int status = reap(pid_);
  reaped_ = true;
  result.seconds = elapsed();
  if (WIFSIGNALED(status)) {
    result.kind = ChildExit::Kind::kSignaled;
    result.signal = WTERMSIG(status);
  } else {
    result.kind = ChildExit::Kind::kExited;
    result.code = WEXITSTATUS(status);
  }
  return result;
}

ChildExit run_isolated(const std::function<void()>& body, double timeout_s, const std::filesystem::path& log_file) {
  PendingChild child([] {}, body, log_file);
  child.start();
  return child.wait(timeout_s);
}

std::string describe_signal(int signal) {
  switch (signal) {
    case SIGSEGV: return "segmentation fault (SIGSEGV)";
    case SIGABRT: return "abort (SIGABRT)";
    case SIGBUS: return "bus error (SIGBUS)";
    case SIGFPE: return "arithmetic exception (SIGFPE)";
    case SIGILL: return "illegal instruction (SIGILL)";
    case SIGKILL: return "killed (SIGKILL)";
    case SIGTERM: return "terminated (SIGTERM)";
    default: break;
  }
  const char* name = ::sigabbrev_np(signal);
  return "signal " + std::to_string(signal) + (name != nullptr ? std::string(" (SIG") + name + ")" : "");
}

std::string describe_exit(const ChildExit& exit, double timeout_s) {
  switch (exit.kind) {
    case ChildExit::Kind::kSignaled: return "was killed by " + describe_signal(exit.signal);
    case ChildExit::Kind::kTimedOut: {
      char seconds[32];
      std::snprintf(seconds, sizeof seconds, "%g", timeout_s);
      return std::string("did not finish within ") + seconds + " s";
    }
    case ChildExit::Kind::kExited: break;
  }
  return "exited with status " + std::to_string(exit.code);
}

}  // namespace spmv::grade
