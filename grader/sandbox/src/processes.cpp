// /proc scanning, killing by uid, and the small system helpers.
#include <dirent.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "internal.hpp"
#include "spmv/sandbox/sandbox.hpp"

namespace spmv::sandbox {
namespace detail {

std::string system_message(const std::string& what, int err) { return what + ": " + std::strerror(err); }

void throw_system(const std::string& what, int err) { throw SandboxError(system_message(what, err)); }

void sleep_ms(int ms) {
  timespec left{ms / 1000, static_cast<long>(ms % 1000) * 1000000L};
  while (nanosleep(&left, &left) != 0 && errno == EINTR) {
  }
}

bool is_stopped(char state) { return state == 'T' || state == 't'; }
bool is_dead(char state) { return state == 'Z' || state == 'X' || state == 'x'; }

namespace {

// /proc/<pid>/stat: "pid (comm) state ppid pgrp ..."; comm may hold spaces
// and parentheses, so the fields are read after the last ')'.
bool read_stat(pid_t pid, ProcEntry& entry) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const auto close = line.rfind(')');
  if (close == std::string::npos) return false;
  std::istringstream fields(line.substr(close + 1));
  fields >> entry.state >> entry.ppid >> entry.pgrp;
  return static_cast<bool>(fields);
}

bool read_ruid(pid_t pid, uid_t& ruid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Uid:", 0) == 0) {
      std::istringstream fields(line.substr(4));
      unsigned long value = 0;
      fields >> value;
      ruid = static_cast<uid_t>(value);
      return static_cast<bool>(fields);
    }
  }
  return false;
}

}  // namespace

std::vector<ProcEntry> scan_processes() {
  std::vector<ProcEntry> processes;
  DIR* proc = opendir("/proc");
  if (proc == nullptr) return processes;
  while (const dirent* entry = readdir(proc)) {
    char* end = nullptr;
    const long pid = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || pid <= 0) continue;
    ProcEntry process;
    process.pid = static_cast<pid_t>(pid);
    if (read_stat(process.pid, process) && read_ruid(process.pid, process.ruid)) {
      processes.push_back(process);
    }
  }
  closedir(proc);
  return processes;
}

std::vector<pid_t> descendants(pid_t root, const std::vector<ProcEntry>& processes) {
  std::multimap<pid_t, pid_t> children;
  for (const ProcEntry& process : processes) children.emplace(process.ppid, process.pid);
  std::vector<pid_t> found;
  std::vector<pid_t> frontier{root};
  while (!frontier.empty()) {
    const pid_t parent = frontier.back();
    frontier.pop_back();
    const auto [first, last] = children.equal_range(parent);
    for (auto it = first; it != last; ++it) {
      found.push_back(it->second);
      frontier.push_back(it->second);
    }
  }
  return found;
}

namespace {

struct HelperSignal {
  uid_t uid;
  int signal;
};

// The helper of signal_uid: system calls only (it shares the caller's
// memory, and glibc's setresuid would try to change every thread of it; a
// failed call's errno lands in the calling thread's, whose loop below
// looks at errno only for EINTR, which the helper never leaves).
int signal_as_uid(void* argument) {
  const auto* order = static_cast<const HelperSignal*>(argument);
  if (syscall(SYS_setresuid, order->uid, order->uid, order->uid) != 0) return 2;
  // kill(-1) spares the caller; ESRCH just means no process was left.
  if (syscall(SYS_kill, -1, order->signal) != 0 && errno != ESRCH) return 3;
  return 0;
}

}  // namespace

bool signal_uid(uid_t uid, int signal) {
  // kill(-1) as root, or as the caller's own uid, would hit far more than a sandbox.
  if (geteuid() != 0 || uid == 0 || uid == getuid()) return false;
  // The helper shares this process's memory (a fork would copy the page
  // tables of all of the grader's, tens of milliseconds a gigabyte, and
  // kill_uid may call this every millisecond while a runner ends) and runs
  // on a stack of its own; it makes two system calls and exits.
  constexpr std::size_t kStack = 64 * 1024;
  void* stack = mmap(nullptr, kStack, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
  if (stack == MAP_FAILED) return false;
  HelperSignal order{uid, signal};
  const pid_t helper = clone(signal_as_uid, static_cast<char*>(stack) + kStack, CLONE_VM | SIGCHLD, &order);
  if (helper < 0) {
    munmap(stack, kStack);
    return false;
  }
  // The helper has the sandbox's uid, so the sandbox can stop or kill it:
  // never wait for it for long.
  int status = 0;
  bool done = false;
  for (int waited = 0;; ++waited) {
    const pid_t reaped = waitpid(helper, &status, WNOHANG | __WALL);
    if (reaped == helper) {
      done = true;
      break;
    }
    if (waited == 1000 || (reaped < 0 && errno != EINTR)) {
      kill(helper, SIGKILL);
      while (waitpid(helper, &status, __WALL) < 0 && errno == EINTR) {
      }
      break;
    }
    usleep(100);
  }
  munmap(stack, kStack);  // the helper is gone: nothing runs on it
  return done && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace detail

std::vector<pid_t> processes_of_uid(uid_t uid) {
  std::vector<pid_t> pids;
  for (const detail::ProcEntry& process : detail::scan_processes()) {
    if (process.ruid == uid && !detail::is_dead(process.state)) pids.push_back(process.pid);
  }
  return pids;
}

std::vector<pid_t> kill_uid(uid_t uid, int timeout_ms) {
  if (geteuid() != 0) throw SandboxError("killing the processes of a uid needs root");
  if (uid == 0 || uid == getuid()) {
    throw SandboxError("kill_uid: refusing uid " + std::to_string(uid) + " (root or the caller's own)");
  }
  timespec start{};
  clock_gettime(CLOCK_MONOTONIC, &start);
  for (;;) {
    std::vector<pid_t> left = processes_of_uid(uid);
    if (left.empty()) return left;
    // kill(-1) as the uid reaches every process in one pass, but its helper
    // can be stopped by the sandbox; root's own signals cannot be stopped.
    detail::signal_uid(uid, SIGKILL);
    for (const pid_t pid : left) kill(pid, SIGKILL);
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    const long elapsed_ms = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
    if (elapsed_ms >= timeout_ms) return left;
    detail::sleep_ms(1);
  }
}

}  // namespace spmv::sandbox
