// restrict_self(): what the sandboxed program applies to itself once its
// privileged start-up is done: PR_SET_NO_NEW_PRIVS, PR_SET_DUMPABLE 0,
// Landlock (file system allow list, TCP, signal and abstract-socket scopes)
// and a seccomp deny list.
#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "internal.hpp"
#include "spmv/sandbox/sandbox.hpp"

namespace spmv::sandbox {
namespace {

// Landlock's user API, written out here because the distributions' kernel
// headers lag the kernels (Debian 12's stop at ABI 2). Values from
// include/uapi/linux/landlock.h.
constexpr unsigned kCreateRulesetVersion = 1U << 0;
constexpr int kRulePathBeneath = 1;

constexpr std::uint64_t kFsExecute = 1ULL << 0;
constexpr std::uint64_t kFsWriteFile = 1ULL << 1;
constexpr std::uint64_t kFsReadFile = 1ULL << 2;
constexpr std::uint64_t kFsReadDir = 1ULL << 3;
constexpr std::uint64_t kFsAbi1 = (1ULL << 13) - 1;  // execute .. make_sym
constexpr std::uint64_t kFsRefer = 1ULL << 13;       // ABI 2
constexpr std::uint64_t kFsTruncate = 1ULL << 14;    // ABI 3
constexpr std::uint64_t kFsIoctlDev = 1ULL << 15;    // ABI 5
constexpr std::uint64_t kFileRights = kFsExecute | kFsWriteFile | kFsReadFile | kFsTruncate | kFsIoctlDev;
constexpr std::uint64_t kNetBindTcp = 1ULL << 0;         // ABI 4
constexpr std::uint64_t kNetConnectTcp = 1ULL << 1;      // ABI 4
constexpr std::uint64_t kScopeAbstractUnix = 1ULL << 0;  // ABI 6
constexpr std::uint64_t kScopeSignal = 1ULL << 1;        // ABI 6

struct RulesetAttr {
  std::uint64_t handled_access_fs;
  std::uint64_t handled_access_net;
  std::uint64_t scoped;
};

struct __attribute__((packed)) PathBeneathAttr {
  std::uint64_t allowed_access;
  std::int32_t parent_fd;
};

long landlock_create_ruleset(const RulesetAttr* attr, std::size_t size, unsigned flags) {
  return syscall(SYS_landlock_create_ruleset, attr, size, flags);
}
long landlock_add_rule(int ruleset, int type, const void* attr, unsigned flags) {
  return syscall(SYS_landlock_add_rule, ruleset, type, attr, flags);
}
long landlock_restrict_self(int ruleset, unsigned flags) { return syscall(SYS_landlock_restrict_self, ruleset, flags); }

// The rights a ruleset of ABI `abi` handles (and so denies unless a rule
// allows them).
std::uint64_t handled_fs(int abi) {
  std::uint64_t rights = kFsAbi1;
  if (abi >= 2) rights |= kFsRefer;
  if (abi >= 3) rights |= kFsTruncate;
  if (abi >= 5) rights |= kFsIoctlDev;
  return rights;
}

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

// Adds `rights` beneath `path`; false when the path does not exist.
bool add_path_rule(int ruleset, const std::filesystem::path& path, std::uint64_t rights) {
  Fd fd(open(path.c_str(), O_PATH | O_CLOEXEC));
  if (fd.get() < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return false;
    detail::throw_system("landlock: open " + path.string(), errno);
  }
  struct stat info {};
  if (fstat(fd.get(), &info) != 0) detail::throw_system("landlock: stat " + path.string(), errno);
  // A rule on a file may only carry the rights that apply to files.
  if (!S_ISDIR(info.st_mode)) rights &= kFileRights;
  const PathBeneathAttr attr{rights, fd.get()};
  if (landlock_add_rule(ruleset, kRulePathBeneath, &attr, 0) != 0) {
    detail::throw_system("landlock_add_rule " + path.string(), errno);
  }
  return true;
}

std::vector<std::filesystem::path> expand_devices(const std::vector<std::filesystem::path>& devices) {
  std::vector<std::filesystem::path> expanded;
  for (const auto& device : devices) {
    if (device.string().find('*') == std::string::npos) {
      expanded.push_back(device);
      continue;
    }
    glob_t matches{};
    if (glob(device.c_str(), 0, nullptr, &matches) == 0) {
      for (std::size_t i = 0; i < matches.gl_pathc; ++i) expanded.emplace_back(matches.gl_pathv[i]);
    }
    globfree(&matches);
  }
  return expanded;
}

// --- Landlock on the other threads ------------------------------------------
// landlock_restrict_self() restricts the calling thread only (before ABI 8's
// thread synchronisation). Threads that already exist (the CUDA driver's)
// are reached with a signal whose handler restricts the thread it runs on.
// A thread that blocks the signal cannot be reached: it is counted and
// reported. The handler stays installed, so a late delivery is harmless.
std::atomic<int> g_ruleset_for_threads{-1};
std::atomic<int> g_threads_restricted{0};
std::atomic<int> g_threads_failed{0};

void restrict_this_thread(int) {
  const int saved_errno = errno;
  const int ruleset = g_ruleset_for_threads.load();
  if (ruleset >= 0 && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && landlock_restrict_self(ruleset, 0) == 0) {
    g_threads_restricted.fetch_add(1);
  } else {
    g_threads_failed.fetch_add(1);
  }
  errno = saved_errno;
}

int thread_signal() { return SIGRTMAX - 2; }

bool blocks_signal(pid_t tid, int signal) {
  std::ifstream status("/proc/self/task/" + std::to_string(tid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("SigBlk:", 0) == 0) {
      const unsigned long long mask = std::stoull(line.substr(7), nullptr, 16);
      return ((mask >> (signal - 1)) & 1ULL) != 0;
    }
  }
  return false;
}

struct ThreadCoverage {
  int total = 1;  // this thread included
  int restricted = 1;
  int unconfirmed = 0;  // signalled, handler not run within the wait
  int blocking = 0;     // when some are unconfirmed: how many blocked the signal
};

// The other threads of this process, read before Landlock applies (it may
// deny /proc afterwards), and how many of them block `signal` right now.
struct OtherThreads {
  std::vector<pid_t> tids;
  int blocking = 0;
};

OtherThreads list_other_threads(int signal) {
  OtherThreads threads;
  const pid_t self = static_cast<pid_t>(syscall(SYS_gettid));
  if (DIR* tasks = opendir("/proc/self/task")) {
    while (const dirent* entry = readdir(tasks)) {
      const long tid = std::strtol(entry->d_name, nullptr, 10);
      if (tid <= 0 || tid == self) continue;
      threads.tids.push_back(static_cast<pid_t>(tid));
      if (blocks_signal(static_cast<pid_t>(tid), signal)) ++threads.blocking;
    }
    closedir(tasks);
  }
  return threads;
}

// Every other thread gets the signal, blocked or not: a blocked one runs the
// handler when it unblocks (glibc blocks all signals while a thread starts).
// Waits up to 100 ms for the handlers; those not run by then are counted.
ThreadCoverage restrict_other_threads(int ruleset, const OtherThreads& others) {
  ThreadCoverage coverage;
  coverage.total += static_cast<int>(others.tids.size());
  if (others.tids.empty()) return coverage;

  const int signal = thread_signal();
  struct sigaction action {};
  action.sa_handler = restrict_this_thread;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  if (sigaction(signal, &action, nullptr) != 0) detail::throw_system("sigaction", errno);
  g_ruleset_for_threads.store(ruleset);
  g_threads_restricted.store(0);
  g_threads_failed.store(0);

  int signalled = 0;
  for (const pid_t tid : others.tids) {
    if (syscall(SYS_tgkill, getpid(), tid, signal) == 0) ++signalled;  // ESRCH: it ended meanwhile
  }
  for (int waited = 0; waited < 100; ++waited) {
    if (g_threads_restricted.load() + g_threads_failed.load() >= signalled) break;
    detail::sleep_ms(1);
  }
  coverage.restricted += g_threads_restricted.load();
  coverage.unconfirmed = signalled - g_threads_restricted.load();
  coverage.blocking = coverage.unconfirmed > 0 ? others.blocking : 0;
  return coverage;
}

// Returns the description, or "" when Landlock is not available.
std::string apply_landlock(const SelfRestriction& restriction) {
  const int abi = detail::landlock_abi();
  if (abi <= 0) return "";
  RulesetAttr attr{handled_fs(abi), 0, 0};
  std::size_t size = sizeof(std::uint64_t);
  if (abi >= 4) {
    attr.handled_access_net = kNetBindTcp | kNetConnectTcp;  // no rule: no TCP bind or connect at all
    size = 2 * sizeof(std::uint64_t);
  }
  if (abi >= 6) {
    attr.scoped = kScopeAbstractUnix | kScopeSignal;
    size = sizeof(RulesetAttr);
  }
  Fd ruleset(static_cast<int>(landlock_create_ruleset(&attr, size, 0)));
  if (ruleset.get() < 0) detail::throw_system("landlock_create_ruleset", errno);

  const std::uint64_t read_only = kFsExecute | kFsReadFile | kFsReadDir;
  const std::uint64_t read_write = attr.handled_access_fs;
  const std::uint64_t device = (kFsReadFile | kFsWriteFile | kFsTruncate | kFsIoctlDev) & attr.handled_access_fs;
  int missing = 0;
  for (const auto& path : restriction.read_only) missing += add_path_rule(ruleset.get(), path, read_only) ? 0 : 1;
  for (const auto& path : restriction.read_write) missing += add_path_rule(ruleset.get(), path, read_write) ? 0 : 1;
  for (const auto& path : restriction.list_only) missing += add_path_rule(ruleset.get(), path, kFsReadDir) ? 0 : 1;
  for (const auto& path : expand_devices(restriction.devices)) {
    missing += add_path_rule(ruleset.get(), path, device) ? 0 : 1;
  }

  const OtherThreads others = list_other_threads(thread_signal());
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) detail::throw_system("prctl(PR_SET_NO_NEW_PRIVS)", errno);
  if (landlock_restrict_self(ruleset.get(), 0) != 0) detail::throw_system("landlock_restrict_self", errno);
  const ThreadCoverage threads = restrict_other_threads(ruleset.get(), others);
  // Keep the ruleset open while a thread may still run the handler.
  if (threads.unconfirmed > 0) ruleset.release();

  std::ostringstream text;
  text << "landlock ABI " << abi << " (fs";
  if (abi >= 4) text << ", tcp";
  if (abi >= 6) text << ", signal and abstract-socket scope";
  text << "; threads " << threads.restricted << "/" << threads.total;
  if (threads.unconfirmed > 0) {
    text << ", " << threads.unconfirmed << " not yet: " << threads.blocking
         << " blocking the signal, restricted only if they unblock it";
  }
  if (missing > 0) text << "; " << missing << " missing paths skipped";
  text << ")";
  return text.str();
}

// --- seccomp -------------------------------------------------------------------
// Default allow (the GPU driver issues undocumented ioctls), a deny list.
const char* const kDeniedSyscalls[] = {
    // other processes' memory and tracing
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "pidfd_open", "kcmp",
    // kernel attack surface
    "perf_event_open", "bpf", "io_uring_setup", "io_uring_enter", "io_uring_register", "userfaultfd", "add_key",
    "keyctl", "request_key", "personality", "open_by_handle_at", "uselib",
    // namespaces and mounts
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "fsopen", "fsconfig", "fsmount", "fspick",
    "move_mount", "open_tree", "mount_setattr",
    // the machine itself
    "reboot", "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "swapon", "swapoff",
    "acct", "settimeofday", "clock_settime", "syslog", "quotactl", "quotactl_fd", "iopl", "ioperm", "sethostname",
    "setdomainname", "vhangup", "lookup_dcookie", "fanotify_init"};

constexpr unsigned long kCloneNamespaceFlags[] = {CLONE_NEWNS,   CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC,
                                                  CLONE_NEWUSER, CLONE_NEWPID,    CLONE_NEWNET};

class SeccompFilter {
 public:
  SeccompFilter() : ctx_(seccomp_init(SCMP_ACT_ALLOW)) {
    if (ctx_ == nullptr) throw SandboxError("seccomp_init failed");
  }
  ~SeccompFilter() { seccomp_release(ctx_); }
  SeccompFilter(const SeccompFilter&) = delete;
  SeccompFilter& operator=(const SeccompFilter&) = delete;

  // Returns false when libseccomp does not know `name` on this architecture.
  template <typename... Args>
  bool add(std::uint32_t action, const char* name, Args... conditions) {
    const int number = seccomp_syscall_resolve_name(name);
    if (number == __NR_SCMP_ERROR) return false;
    const int status =
        seccomp_rule_add(ctx_, action, number, static_cast<unsigned>(sizeof...(conditions)), conditions...);
    if (status != 0) detail::throw_system(std::string("seccomp_rule_add ") + name, -status);
    ++rules_;
    return true;
  }
  void set(scmp_filter_attr attribute, std::uint32_t value, const char* what) {
    const int status = seccomp_attr_set(ctx_, attribute, value);
    if (status != 0) detail::throw_system(std::string("seccomp_attr_set ") + what, -status);
  }
  void load() {
    const int status = seccomp_load(ctx_);
    if (status != 0) detail::throw_system("seccomp_load", -status);
  }
  int rules() const { return rules_; }

 private:
  scmp_filter_ctx ctx_;
  int rules_ = 0;
};

std::string apply_seccomp(const SelfRestriction& restriction) {
  SeccompFilter filter;
  // Every thread (the driver's too) gets the filter, and PR_SET_NO_NEW_PRIVS.
  filter.set(SCMP_FLTATR_CTL_TSYNC, 1, "TSYNC");
  filter.set(SCMP_FLTATR_CTL_NNP, 1, "NNP");
  // A system call of another architecture (int 0x80 on x86-64) kills the process.
  filter.set(SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS, "ACT_BADARCH");
  const std::uint32_t deny =
      SCMP_ACT_ERRNO(static_cast<std::uint16_t>(restriction.deny_errno > 0 ? restriction.deny_errno : EPERM));
  std::vector<std::string> unknown;
  for (const char* name : kDeniedSyscalls) {
    if (!filter.add(deny, name)) unknown.emplace_back(name);
  }
  if (restriction.forbid_exec) {
    filter.add(deny, "execve");
    filter.add(deny, "execveat");
  }
  // clone3 passes its flags in memory, out of the filter's reach: ENOSYS
  // makes libc fall back to clone, whose flags the filter sees.
  filter.add(SCMP_ACT_ERRNO(ENOSYS), "clone3");
  for (const unsigned long flag : kCloneNamespaceFlags) {
    filter.add(deny, "clone", SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag));
  }
  // Dumpable stays 0: no other process of the uid may ptrace this one or
  // read its /proc/<pid>/mem.
  filter.add(deny, "prctl", SCMP_A0(SCMP_CMP_EQ, PR_SET_DUMPABLE));
  // Typing into a terminal that leaked in; the kernel compares 32 bits.
  filter.add(deny, "ioctl", SCMP_A1(SCMP_CMP_MASKED_EQ, 0xFFFFFFFFULL, TIOCSTI));
  filter.add(deny, "ioctl", SCMP_A1(SCMP_CMP_MASKED_EQ, 0xFFFFFFFFULL, TIOCLINUX));
  if (restriction.forbid_network && restriction.forbid_unix_sockets) {
    filter.add(deny, "socket");
  } else if (restriction.forbid_network) {
    filter.add(deny, "socket", SCMP_A0(SCMP_CMP_NE, AF_UNIX));
  } else if (restriction.forbid_unix_sockets) {
    filter.add(deny, "socket", SCMP_A0(SCMP_CMP_EQ, AF_UNIX));
  }
  filter.load();

  std::ostringstream text;
  text << "seccomp (" << filter.rules() << " rules";
  if (restriction.forbid_exec) text << ", no exec";
  if (restriction.forbid_network && restriction.forbid_unix_sockets) {
    text << ", no sockets";
  } else if (restriction.forbid_network) {
    text << ", AF_UNIX sockets only";
  } else if (restriction.forbid_unix_sockets) {
    text << ", no AF_UNIX sockets";
  }
  if (!unknown.empty()) {
    text << "; unknown here:";
    for (const auto& name : unknown) text << " " << name;
  }
  text << ")";
  return text.str();
}

}  // namespace

namespace detail {

int landlock_abi() {
  const long abi = landlock_create_ruleset(nullptr, 0, kCreateRulesetVersion);
  return abi < 0 ? 0 : static_cast<int>(abi);
}

bool seccomp_usable() {
  static std::once_flag once;
  static bool usable = false;
  std::call_once(once, [] {
    const pid_t child = fork();
    if (child < 0) return;
    if (child == 0) {
      // An allow-all filter, built by hand: no allocation in the child.
      sock_filter allow_all[] = {BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)};
      sock_fprog program{1, allow_all};
      if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) _exit(1);
      _exit(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0 ? 0 : 1);
    }
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    usable = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  });
  return usable;
}

}  // namespace detail

int landlock_abi() { return detail::landlock_abi(); }

const std::vector<std::string>& denied_syscalls() {
  static const std::vector<std::string> names(std::begin(kDeniedSyscalls), std::end(kDeniedSyscalls));
  return names;
}

std::string restrict_self(const SelfRestriction& restriction, Level level) {
  if (level == Level::kNone) return "none: nothing applied";
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) detail::throw_system("prctl(PR_SET_NO_NEW_PRIVS)", errno);
  if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) detail::throw_system("prctl(PR_SET_DUMPABLE, 0)", errno);

  std::string landlock = restriction.landlock ? apply_landlock(restriction) : "no landlock (left out for a tool)";
  if (landlock.empty()) {
    if (level == Level::kFull) throw SandboxError("landlock: not available (required at level full)");
    landlock = "no landlock (not available here)";
  }
  return landlock + ", " + apply_seccomp(restriction);
}

}  // namespace spmv::sandbox
