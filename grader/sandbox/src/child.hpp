// The code that runs between fork/clone and execve: no allocation, no locks,
// raw system calls only (the parent may be multi-threaded, and a clone()
// child does not run glibc's fork handlers). Everything it needs is prepared
// by the parent in a ChildPlan.
#pragma once

#include <sys/resource.h>
#include <sys/types.h>

namespace spmv::sandbox::detail {

// What the child writes into the error pipe when a step fails, then exits.
struct ChildError {
  char step[232];
  int error;  // errno
};

struct HiddenPath {
  const char* path;
  bool is_folder;
};

struct ResourceLimit {
  int resource;
  rlim_t value;
};

struct ChildPlan {
  // The program; nullptr: a dry run (strongest_available's probe) that stops
  // after the namespaces and the uid change.
  const char* executable = nullptr;
  char* const* argv = nullptr;
  char* const* envp = nullptr;
  const char* scratch = nullptr;

  int devnull_fd = -1;  // becomes fd 0 (and 1, 2 without output)
  int output_fd = -1;   // becomes fds 1 and 2
  const int* pass_fds = nullptr;
  int pass_count = 0;
  int error_fd = -1;   // write end of the error pipe (close-on-exec)
  int status_fd = -1;  // write end of init's status pipe (with an init only)

  bool change_uid = false;
  uid_t uid = 0;
  gid_t gid = 0;
  const ResourceLimit* limits = nullptr;
  int limit_count = 0;
  bool no_new_privs = false;

  // Namespaces (clone flags); an init runs when CLONE_NEWPID is among them.
  unsigned long clone_flags = 0;
  // With CLONE_NEWUSER: the child maps its own uid and gid (an unprivileged
  // mapping of one id onto itself).
  const char* uid_map = nullptr;  // "1000 1000 1\n"
  const char* gid_map = nullptr;
  bool mount_proc = false;
  const HiddenPath* hidden = nullptr;
  int hidden_count = 0;
};

// Init's letting go of the grader's memory (child.cpp): what it keeps of a
// large anonymous mapping, the rest of which it unmaps.
struct MemoryRange {
  unsigned long start = 0;
  unsigned long end = 0;  // past the last byte
};
struct KeptMemory {
  unsigned long stack = 0;         // an address on init's stack: its whole mapping is kept
  unsigned long thread_block = 0;  // the thread pointer: a window around it is kept
};
// Of one line of /proc/self/maps ("start-end perms offset dev inode
// [name]", without its newline), the ranges init lets go: none if the
// mapping is a file's, named other than [heap], under 1 MB or holds the
// stack; else the mapping but the window around the thread block (TLS
// below the pointer, the thread's descriptor above), in at most two
// ranges. Returns how many it wrote into `out`.
int ranges_to_let_go(const char* line, const char* end, const KeptMemory& kept, MemoryRange out[2]);

// The first process after clone(): init (with a PID namespace) or the
// program. Never returns.
[[noreturn]] void run_child(const ChildPlan& plan);

}  // namespace spmv::sandbox::detail
