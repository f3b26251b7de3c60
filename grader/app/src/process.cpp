#include "process.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
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

namespace spmv::grade {
namespace {

// Exit status of a child whose grader code threw (distinct from the
// submission's own exit() calls, which the stage field tells apart anyway).
constexpr int kChildInternalFailure = 70;

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

[[noreturn]] void child_main(const std::function<void()>& body, pid_t parent, const std::filesystem::path& log) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The parent may have died between fork() and prctl().
  if (::getppid() != parent) ::_exit(kChildInternalFailure);
  redirect_output(log);
  try {
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

ChildExit run_isolated(const std::function<void()>& body, double timeout_s, const std::filesystem::path& log_file) {
  // Buffered output would otherwise be written twice, once by each process.
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t parent = ::getpid();
  const auto start = std::chrono::steady_clock::now();
  const pid_t child = ::fork();
  if (child < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  if (child == 0) child_main(body, parent, log_file);
  ::setpgid(child, child);  // both sides set it: whichever runs first wins the race

  ChildExit result;
  const auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  // Polling with a short, growing sleep: quick rows end within a millisecond
  // of finishing, long ones cost little CPU.
  auto pause = std::chrono::microseconds(200);
  while (true) {
    // WNOWAIT leaves the child a zombie: its pid, and so its process group
    // id, cannot be reused before the group is killed below.
    siginfo_t info{};
    const int polled = ::waitid(P_PID, static_cast<id_t>(child), &info, WEXITED | WNOHANG | WNOWAIT);
    if (polled == 0 && info.si_pid == child) break;
    if (polled < 0 && errno != EINTR) throw std::runtime_error(std::string("waitid failed: ") + std::strerror(errno));
    if (elapsed() >= timeout_s) {
      kill_group(child);
      reap(child);
      result.kind = ChildExit::Kind::kTimedOut;
      result.seconds = elapsed();
      return result;
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(20000));
  }
  // Whatever the submission may have left running in the group goes too.
  ::kill(-child, SIGKILL);
  const int status = reap(child);
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
