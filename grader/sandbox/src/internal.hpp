// Internal helpers of spmv::sandbox shared by its source files.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace spmv::sandbox::detail {

// "what: strerror(err)".
std::string system_message(const std::string& what, int err);
[[noreturn]] void throw_system(const std::string& what, int err);

// The kernel's Landlock ABI version, 0 when Landlock is missing or disabled.
int landlock_abi();
// Whether a seccomp filter can be installed here (tried in a throwaway child).
bool seccomp_usable();

// One process as /proc shows it.
struct ProcEntry {
  pid_t pid = 0;
  pid_t ppid = 0;
  pid_t pgrp = 0;
  uid_t ruid = 0;
  char state = '?';  // R S D T t Z X ...
};
// Every process visible in /proc (entries that vanish while read are skipped).
std::vector<ProcEntry> scan_processes();
// The pids of `root`'s descendants (not `root` itself) in `processes`.
std::vector<pid_t> descendants(pid_t root, const std::vector<ProcEntry>& processes);
bool is_stopped(char state);
bool is_dead(char state);

// kill(-1, signal) from a throwaway child whose real and effective uid are
// `uid`: every process of that uid gets the signal, in one atomic pass of
// the kernel (a process forking at that moment cannot slip through). Root
// only; returns false when the helper could not be run.
bool signal_uid(uid_t uid, int signal);

// Blocks `ms` milliseconds (EINTR resumed).
void sleep_ms(int ms);

}  // namespace spmv::sandbox::detail

namespace spmv::sandbox::detail {

// Runs the start of spawn() in a throwaway child with these clone flags
// (CLONE_NEWUSER maps the caller's own ids; CLONE_NEWNS mounts /proc when
// CLONE_NEWPID is there too) and, with `change_uid`, a switch to an unused
// uid; stops before execve. Returns "" when every step worked, else the
// step that failed and why.
std::string dry_run(unsigned long clone_flags, bool change_uid);

// "CLONE_NEWUSER|CLONE_NEWPID|...".
std::string clone_flag_names(unsigned long flags);

}  // namespace spmv::sandbox::detail
