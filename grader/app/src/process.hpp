// Running a piece of the grader in a forked child process with a time limit,
// its stdout and stderr captured in a log file.
//
// fork() without exec: the child inherits the parent's case data
// copy-on-write, so a matrix read and converted once serves every child.
// The parent never initializes CUDA, which is what makes fork safe; CUDA is
// started in each child. The child runs in its own process group, is killed
// with the parent (PR_SET_PDEATHSIG), and at the time limit its whole group
// is killed, so a hung kernel or a process the submission spawned cannot
// outlive its row.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

namespace spmv::grade {

struct ChildExit {
  enum class Kind { kExited, kSignaled, kTimedOut };
  Kind kind = Kind::kExited;
  int code = 0;    // exit status, for kExited
  int signal = 0;  // for kSignaled
  double seconds = 0;
};

// Runs body() in a child and waits for it at most timeout_s seconds. The
// child ends with _exit(0) after body() returns (no atexit handlers or
// destructors of the parent's objects run twice), or _exit(70) if it throws.
ChildExit run_isolated(const std::function<void()>& body, double timeout_s,
                       const std::filesystem::path& log_file);

// "segmentation fault (SIGSEGV)", "abort (SIGABRT)", ...
std::string describe_signal(int signal);
// "was killed by a segmentation fault (SIGSEGV)", "did not finish within
// 60 s", "exited with status 3": for a child that did not get to its end.
std::string describe_exit(const ChildExit& exit, double timeout_s);

}  // namespace spmv::grade
