// sandbox_probe: a hostile program for the sandbox tests. It restricts
// itself as the runner will (restrict_self), then tries one attack and prints
// what happened as "key=value" lines on stdout (the tests parse them).
//
//   sandbox_probe [--level L] [--ro P]... [--rw P]... [--dev P]...
//                 [--deny-errno N] [--allow-network] [--thread]
//                 -- <command> [args...]
//
// --thread starts a thread before restrict_self (as the CUDA driver does);
// `thread-read` then reads a file from it. --thread-blocking-signals: the
// same thread with every signal blocked; it reads, unblocks, reads again.
#include <fcntl.h>
#include <linux/kcmp.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <functional>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "spmv/sandbox/sandbox.hpp"

extern char** environ;

#if defined(SPMV_SANITIZED_BUILD)
// As for the runner (grader/runner/src/runner_main.cpp): a crash is the
// probe's own signal, and no leak check at exit, whose ptrace the seccomp
// filter denies. The sandbox gives the probe no ASAN_OPTIONS.
extern "C" const char* __asan_default_options() {
  return "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:detect_leaks=0";
}
extern "C" const char* __tsan_default_options() { return "handle_segv=0:handle_sigbus=0:handle_sigfpe=0"; }
#endif

namespace {

// The probe's crash: a real store to address 0, left uninstrumented so that
// a sanitized build (UBSan) faults as a plain one does instead of reporting it.
__attribute__((no_sanitize("undefined"))) void store_to_null() {
  volatile int* volatile target = nullptr;  // the compiler cannot see the null and make it a trap
  *target = 1;
}

namespace sb = spmv::sandbox;

// A pid no process has: above the kernel's largest pid_max (2^22).
constexpr pid_t kNoSuchPid = 0x3FFFFFF0;
// The errno a call got by the time its result is printed.
std::string errno_name(int error) {
  const char* name = strerrorname_np(error);
  return std::string(name != nullptr ? name : "?") + "(" + std::to_string(error) + ")";
}

void say(const std::string& key, const std::string& value) {
  std::printf("%s=%s\n", key.c_str(), value.c_str());
  std::fflush(stdout);
}

// "ok" or "errno:EACCES(13)".
std::string outcome(long result) { return result >= 0 ? std::string("ok") : "errno:" + errno_name(errno); }

// Non-printable bytes escaped, so a value stays on one line.
std::string printable(const std::string& bytes) {
  std::string text;
  for (const unsigned char c : bytes) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      text += static_cast<char>(c);
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02x", c);
      text += escaped;
    }
  }
  return text;
}

std::string read_path(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "errno:" + errno_name(errno);
  char buffer[4096];
  const ssize_t n = read(fd, buffer, sizeof buffer);
  const int error = errno;
  close(fd);
  if (n < 0) return "errno:" + errno_name(error);
  return "ok:" + printable(std::string(buffer, static_cast<std::size_t>(n)));
}

std::string write_path(const std::string& path, const std::string& text) {
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return "errno:" + errno_name(errno);
  const ssize_t n = write(fd, text.data(), text.size());
  const int error = errno;
  close(fd);
  return n == static_cast<ssize_t>(text.size()) ? "ok" : "errno:" + errno_name(error);
}

// --- what the probe saw at its start, before restricting itself -----------------
struct StartState {
  std::vector<int> open_fds;
  std::vector<std::string> env;
};

StartState record_start() {
  StartState state;
  for (int fd = 0; fd < 65536; ++fd) {
    if (fcntl(fd, F_GETFD) >= 0) state.open_fds.push_back(fd);
  }
  for (char** entry = environ; *entry != nullptr; ++entry) state.env.emplace_back(*entry);
  return state;
}

std::string describe_fd(int fd) {
  struct stat info {};
  if (fstat(fd, &info) != 0) return "errno:" + errno_name(errno);
  if (S_ISCHR(info.st_mode))
    return "chr:" + std::to_string(major(info.st_rdev)) + ":" + std::to_string(minor(info.st_rdev));
  if (S_ISFIFO(info.st_mode)) return "fifo";
  if (S_ISREG(info.st_mode)) return "file";
  if (S_ISSOCK(info.st_mode)) return "socket";
  return "other";
}

// --- the deny list, each call with arguments that do nothing even unfiltered --
long raw(long number, long a = 0, long b = 0, long c = 0, long d = 0, long e = 0, long f = 0) {
  return syscall(number, a, b, c, d, e, f);
}

const std::map<std::string, std::function<long()>>& denied_calls() {
  static const std::map<std::string, std::function<long()>> calls = {
      {"ptrace", [] { return raw(SYS_ptrace, PTRACE_ATTACH, kNoSuchPid); }},
      {"process_vm_readv", [] { return raw(SYS_process_vm_readv, kNoSuchPid, 0, 0, 0, 0, 0); }},
      {"process_vm_writev", [] { return raw(SYS_process_vm_writev, kNoSuchPid, 0, 0, 0, 0, 0); }},
      {"pidfd_getfd", [] { return raw(SYS_pidfd_getfd, -1, 0, 0); }},
      {"pidfd_open", [] { return raw(SYS_pidfd_open, kNoSuchPid, 0); }},
      {"kcmp", [] { return raw(SYS_kcmp, getpid(), getpid(), KCMP_VM, 0, 0); }},
      {"perf_event_open", [] { return raw(SYS_perf_event_open, 0, 0, -1, -1, 0); }},
      {"bpf", [] { return raw(SYS_bpf, -1, 0, 0); }},
      {"io_uring_setup", [] { return raw(SYS_io_uring_setup, 0, 0); }},
      {"io_uring_enter", [] { return raw(SYS_io_uring_enter, -1, 0, 0, 0, 0, 0); }},
      {"io_uring_register", [] { return raw(SYS_io_uring_register, -1, 0, 0, 0); }},
      {"userfaultfd", [] { return raw(SYS_userfaultfd, ~0L); }},
      {"add_key", [] { return raw(SYS_add_key, 0, 0, 0, 0, 0); }},
      {"keyctl", [] { return raw(SYS_keyctl, -1, 0, 0, 0, 0); }},
      {"request_key", [] { return raw(SYS_request_key, 0, 0, 0, 0); }},
      {"personality", [] { return raw(SYS_personality, 0xffffffffL); }},  // a query
      {"open_by_handle_at", [] { return raw(SYS_open_by_handle_at, -1, 0, 0); }},
      {"uselib", [] { return raw(SYS_uselib, 0); }},
      {"unshare", [] { return raw(SYS_unshare, 0x1); }},  // not a namespace flag: EINVAL
      {"setns", [] { return raw(SYS_setns, -1, 0); }},
      {"mount", [] { return raw(SYS_mount, 0, 0, 0, 0, 0); }},
      {"umount2", [] { return raw(SYS_umount2, reinterpret_cast<long>("/"), 0x80000000L); }},  // unknown flag
      {"pivot_root", [] { return raw(SYS_pivot_root, 0, 0); }},
      {"chroot", [] { return raw(SYS_chroot, 0); }},
      {"fsopen", [] { return raw(SYS_fsopen, 0, 0); }},
      {"fsconfig", [] { return raw(SYS_fsconfig, -1, 0, 0, 0, 0); }},
      {"fsmount", [] { return raw(SYS_fsmount, -1, 0, 0); }},
      {"fspick", [] { return raw(SYS_fspick, -1, 0, 0); }},
      {"move_mount", [] { return raw(SYS_move_mount, -1, 0, -1, 0, 0); }},
      {"open_tree", [] { return raw(SYS_open_tree, -1, 0, 0); }},
      {"mount_setattr", [] { return raw(SYS_mount_setattr, -1, 0, 0, 0, 0); }},
      {"reboot", [] { return raw(SYS_reboot, 0, 0, 0, 0); }},                                   // wrong magic numbers
      {"kexec_load", [] { return raw(SYS_kexec_load, 0, 0, 0, 0x7FFF0000L); }},                 // no such architecture
      {"kexec_file_load", [] { return raw(SYS_kexec_file_load, -1, -1, 0, 0, 0x80000000L); }},  // unknown flag
      {"init_module", [] { return raw(SYS_init_module, 0, 0, 0); }},
      {"finit_module", [] { return raw(SYS_finit_module, -1, 0, 0); }},
      {"delete_module", [] { return raw(SYS_delete_module, 0, 0); }},
      {"swapon", [] { return raw(SYS_swapon, 0, 0); }},
      {"swapoff", [] { return raw(SYS_swapoff, 0); }},
      {"acct", [] { return raw(SYS_acct, 1); }},                     // a bad pointer: EFAULT
      {"settimeofday", [] { return raw(SYS_settimeofday, 0, 0); }},  // both NULL: changes nothing
      {"clock_settime",
       [] {
         static timespec now{};
         return raw(SYS_clock_settime, CLOCK_MONOTONIC, reinterpret_cast<long>(&now));  // not settable
       }},
      {"syslog", [] { return raw(SYS_syslog, 10, 0, 0); }},  // the buffer's size
      {"quotactl", [] { return raw(SYS_quotactl, 0, 0, 0, 0); }},
      {"quotactl_fd", [] { return raw(SYS_quotactl_fd, -1, 0, 0, 0); }},
      {"iopl", [] { return raw(SYS_iopl, 4); }},
      {"ioperm", [] { return raw(SYS_ioperm, 0x10000, 1, 0); }},
      {"sethostname", [] { return raw(SYS_sethostname, 0, 100000); }},
      {"setdomainname", [] { return raw(SYS_setdomainname, 0, 100000); }},
      {"vhangup", [] { return raw(SYS_vhangup); }},  // no controlling terminal: nothing to hang up
      {"lookup_dcookie", [] { return raw(SYS_lookup_dcookie, 0, 0, 0); }},
      {"fanotify_init", [] { return raw(SYS_fanotify_init, ~0L, 0); }},
      // Beyond the plain list.
      {"execve", [] { return raw(SYS_execve, reinterpret_cast<long>("/nonexistent-spmv"), 0, 0); }},
      {"execveat", [] { return raw(SYS_execveat, -1, reinterpret_cast<long>("/nonexistent-spmv"), 0, 0, 0); }},
      {"clone3", [] { return raw(SYS_clone3, 0, 0); }},
      {"prctl(PR_SET_DUMPABLE)", [] { return raw(SYS_prctl, PR_SET_DUMPABLE, 2); }},  // 2: EINVAL
      {"ioctl(TIOCSTI)", [] { return raw(SYS_ioctl, 0, TIOCSTI, reinterpret_cast<long>("x")); }},
      // The kernel reads 32 bits of the command: high bits must not slip past.
      {"ioctl(TIOCSTI|1<<32)", [] { return raw(SYS_ioctl, 0, TIOCSTI | (1L << 32), reinterpret_cast<long>("x")); }},
      {"ioctl(TIOCLINUX)", [] { return raw(SYS_ioctl, 0, TIOCLINUX, reinterpret_cast<long>("x")); }},
      {"socket(AF_INET)",
       [] {
         const long fd = raw(SYS_socket, AF_INET, SOCK_STREAM, 0);
         if (fd >= 0) close(static_cast<int>(fd));
         return fd;
       }},
      {"socket(AF_INET6)",
       [] {
         const long fd = raw(SYS_socket, AF_INET6, SOCK_DGRAM, 0);
         if (fd >= 0) close(static_cast<int>(fd));
         return fd;
       }},
  };
  return calls;
}

// clone with one CLONE_NEW* flag and CLONE_THREAD without CLONE_SIGHAND: the
// kernel refuses that with EINVAL before creating anything.
const std::map<std::string, unsigned long>& clone_namespace_flags() {
  static const std::map<std::string, unsigned long> flags = {
      {"CLONE_NEWNS", CLONE_NEWNS},   {"CLONE_NEWCGROUP", CLONE_NEWCGROUP}, {"CLONE_NEWUTS", CLONE_NEWUTS},
      {"CLONE_NEWIPC", CLONE_NEWIPC}, {"CLONE_NEWUSER", CLONE_NEWUSER},     {"CLONE_NEWPID", CLONE_NEWPID},
      {"CLONE_NEWNET", CLONE_NEWNET}};
  return flags;
}

// What must keep working after restrict_self.
void allowed_calls() {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  if (child > 0) waitpid(child, nullptr, 0);
  say("allowed.fork", outcome(child));
  std::thread worker([] {});
  worker.join();
  say("allowed.thread", "ok");
  const int unix_socket = socket(AF_UNIX, SOCK_STREAM, 0);
  say("allowed.socket(AF_UNIX)", outcome(unix_socket));
  if (unix_socket >= 0) close(unix_socket);
  say("allowed.prctl(PR_GET_DUMPABLE)", outcome(prctl(PR_GET_DUMPABLE)));
  say("allowed.getppid", outcome(getppid()));
}

void syscalls() {
  for (const auto& [name, call] : denied_calls()) say("syscall." + name, outcome(call()));
  for (const auto& [name, flag] : clone_namespace_flags()) {
    say("syscall.clone(" + name + ")", outcome(raw(SYS_clone, static_cast<long>(flag | CLONE_THREAD), 0, 0, 0, 0)));
  }
  for (const std::string& name : sb::denied_syscalls()) {
    if (denied_calls().count(name) == 0) say("syscall." + name, "not-probed");
  }
  allowed_calls();
}

// --- the other attacks ---------------------------------------------------------
void whoami() {
  say("uid", std::to_string(getuid()));
  say("euid", std::to_string(geteuid()));
  say("gid", std::to_string(getgid()));
  gid_t groups[64];
  const int count = getgroups(64, groups);
  std::string list;
  for (int i = 0; i < count; ++i) list += (i ? " " : "") + std::to_string(groups[i]);
  say("groups", list);
  char cwd[4096];
  say("cwd", getcwd(cwd, sizeof cwd) != nullptr ? cwd : "?");
  say("pid", std::to_string(getpid()));
  say("ppid", std::to_string(getppid()));
  say("sid_is_pid", getsid(0) == getpid() ? "1" : "0");
  say("dumpable", std::to_string(prctl(PR_GET_DUMPABLE)));
  say("no_new_privs", std::to_string(prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0)));
  say("seccomp", std::to_string(prctl(PR_GET_SECCOMP)));
  struct rlimit core {};
  getrlimit(RLIMIT_CORE, &core);
  say("rlimit_core", std::to_string(core.rlim_cur));
}

void print_namespaces() {
  for (const char* name : {"pid", "net", "mnt", "user", "ipc", "uts"}) {
    char target[256] = {};
    const std::string link = std::string("/proc/self/ns/") + name;
    const ssize_t n = readlink(link.c_str(), target, sizeof target - 1);
    say(std::string("ns.") + name,
        n > 0 ? std::string(target, static_cast<std::size_t>(n)) : "errno:" + errno_name(errno));
  }
}

void fds(const StartState& start) {
  std::string list;
  for (const int fd : start.open_fds) list += (list.empty() ? "" : " ") + std::to_string(fd);
  say("fds", list);
  for (const int fd : start.open_fds) {
    say("fd" + std::to_string(fd), describe_fd(fd));
    if (fd >= 3) {
      const std::string text = "written to fd " + std::to_string(fd) + "\n";
      say("fd" + std::to_string(fd) + ".write", outcome(write(fd, text.data(), text.size())));
    }
  }
}

void connect_to(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    say("connect", "socket:errno:" + errno_name(errno));
    return;
  }
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const int result = connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address);
  say("connect", result == 0 ? std::string("ok") : "connect:errno:" + errno_name(errno));
  if (result == 0) {
    const char hello[] = "hello from the sandbox";
    [[maybe_unused]] const ssize_t sent = write(fd, hello, sizeof hello - 1);
  }
  close(fd);
}

void connect_unix(const std::string& path) {
  const int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    say("connect-unix", "socket:errno:" + errno_name(errno));
    return;
  }
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof address.sun_path, "%s", path.c_str());
  const int result = connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address);
  say("connect-unix", result == 0 ? std::string("ok") : "connect:errno:" + errno_name(errno));
  close(fd);
}

void proc_of(pid_t pid, unsigned long address) {
  const std::string base = "/proc/" + std::to_string(pid) + "/";
  say("proc.cmdline", read_path(base + "cmdline"));
  say("proc.environ", read_path(base + "environ"));
  const int mem = open((base + "mem").c_str(), O_RDONLY | O_CLOEXEC);
  if (mem < 0) {
    say("proc.mem", "errno:" + errno_name(errno));
    return;
  }
  char bytes[64] = {};
  const ssize_t n = pread(mem, bytes, sizeof bytes - 1, static_cast<off_t>(address));
  say("proc.mem", n >= 0 ? "ok:" + printable(std::string(bytes, std::strlen(bytes))) : "errno:" + errno_name(errno));
  close(mem);
}

void fork_bomb(int most) {
  int forks = 0;
  int error = 0;
  for (; forks < most; ++forks) {
    const pid_t child = fork();
    if (child == 0) {
      for (;;) pause();
    }
    if (child < 0) {
      error = errno;
      break;
    }
  }
  say("forks", std::to_string(forks));
  say("fork.errno", error != 0 ? errno_name(error) : "none");
}

// A double-forked, setsid daemon that writes `path` after `delay_ms`.
void daemon(const std::string& path, int delay_ms) {
  const pid_t middle = fork();
  if (middle == 0) {
    setsid();
    if (fork() == 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
      write_path(path, "the daemon survived\n");
      _exit(0);
    }
    _exit(0);
  }
  waitpid(middle, nullptr, 0);
  say("daemon", "started");
}

// Ticks a counter file (replaced atomically) every 5 ms in this process, in a
// child of the same process group, and in a setsid, double-forked daemon (an
// orphan: no longer a descendant); runs until killed.
[[noreturn]] void tick() {
  const auto run = [](const std::string& name) {
    const std::string path = "tick-" + name;
    for (long count = 0;; ++count) {
      write_path(path + ".new", std::to_string(count));
      rename((path + ".new").c_str(), path.c_str());
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  };
  if (fork() == 0) run("child");
  const pid_t middle = fork();
  if (middle == 0) {
    setsid();
    if (fork() == 0) run("daemon");
    _exit(0);
  }
  waitpid(middle, nullptr, 0);
  run("main");
  std::abort();
}

// --- the thread that exists before restrict_self ---------------------------------
struct EarlyThread {
  pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
  std::string path;
  std::string result;
  std::string result_after_unblock;
  bool blocks_signals = false;  // created with every signal blocked
  bool started = false;
  bool go = false;
  bool done = false;
  pthread_t thread{};
};
EarlyThread g_early;

void* early_thread_main(void*) {
  pthread_mutex_lock(&g_early.mutex);
  g_early.started = true;
  pthread_cond_broadcast(&g_early.wake);
  while (!g_early.go) pthread_cond_wait(&g_early.wake, &g_early.mutex);
  g_early.result = read_path(g_early.path);
  if (g_early.blocks_signals) {
    // restrict_self's signal is pending: unblocking runs its handler.
    sigset_t none;
    sigemptyset(&none);
    pthread_sigmask(SIG_SETMASK, &none, nullptr);
    g_early.result_after_unblock = read_path(g_early.path);
  }
  g_early.done = true;
  pthread_cond_broadcast(&g_early.wake);
  pthread_mutex_unlock(&g_early.mutex);
  return nullptr;
}

std::string read_from_early_thread(const std::string& path) {
  pthread_mutex_lock(&g_early.mutex);
  g_early.path = path;
  g_early.go = true;
  pthread_cond_broadcast(&g_early.wake);
  while (!g_early.done) pthread_cond_wait(&g_early.wake, &g_early.mutex);
  pthread_mutex_unlock(&g_early.mutex);
  return g_early.result;
}

int run_command(const std::vector<std::string>& args, const StartState& start) {
  const std::string& command = args.at(0);
  const auto arg = [&](std::size_t i) -> const std::string& { return args.at(i); };
  if (command == "whoami") {
    whoami();
    print_namespaces();
  } else if (command == "env") {
    for (const auto& entry : start.env) say("env", entry);
  } else if (command == "fds") {
    fds(start);
  } else if (command == "syscalls") {
    syscalls();
  } else if (command == "ptrace-attach") {
    const pid_t target = arg(1) == "parent" ? getppid() : std::stoi(arg(1));
    if (target <= 0) {
      say("ptrace", "refused: target " + std::to_string(target));
      return 2;
    }
    const long result = ptrace(PTRACE_ATTACH, target, nullptr, nullptr);
    say("ptrace", outcome(result));
    if (result == 0) {
      waitpid(target, nullptr, __WALL);
      ptrace(PTRACE_DETACH, target, nullptr, nullptr);
    }
  } else if (command == "kill") {
    const pid_t target = arg(1) == "parent" ? getppid() : std::stoi(arg(1));
    if (target <= 0) {  // kill(0) or kill(-1) would be another attack than the one asked for
      say("kill", "refused: target " + std::to_string(target));
      return 2;
    }
    say("target", std::to_string(target));
    say("kill", outcome(kill(target, std::stoi(arg(2)))));
  } else if (command == "read") {
    for (std::size_t k = 1; k < args.size(); ++k) say("read", read_path(arg(k)));
  } else if (command == "list") {
    say("list", outcome(open(arg(1).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)));
  } else if (command == "write") {
    for (std::size_t k = 1; k < args.size(); ++k) say("write", write_path(arg(k), "written by the sandbox\n"));
  } else if (command == "proc") {
    proc_of(std::stoi(arg(1)), std::stoul(arg(2), nullptr, 16));
  } else if (command == "connect") {
    connect_to(std::stoi(arg(1)));
  } else if (command == "connect-unix") {
    connect_unix(arg(1));
  } else if (command == "fork-bomb") {
    fork_bomb(std::stoi(arg(1)));
  } else if (command == "daemon") {
    daemon(arg(1), std::stoi(arg(2)));
  } else if (command == "stop-my-uid") {
    // Children, then SIGSTOP to every other process of this uid, forever:
    // a helper the grader runs with this uid would be frozen too.
    if (getuid() == 0) {
      say("stop-my-uid", "refused: root");  // kill(-1) as root would stop the machine
      return 2;
    }
    for (int i = 0; i < 3; ++i) {
      if (fork() == 0) {
        for (;;) pause();
      }
    }
    say("stop-my-uid", "looping");
    for (;;) kill(-1, SIGSTOP);
  } else if (command == "tick") {
    tick();
  } else if (command == "int80") {
#if defined(__x86_64__)
    // getpid through the 32-bit entry (20 is its i386 number).
    long result = 20;
    asm volatile("int $0x80" : "+a"(result) : : "memory");
    say("int80", result > 0 ? "ok" : "errno:" + errno_name(static_cast<int>(-result)));
#else
    say("int80", "not x86-64");
#endif
  } else if (command == "segv") {
    std::fflush(stdout);
    store_to_null();
  } else if (command == "abort") {
    std::fflush(stdout);
    std::abort();
  } else if (command == "exit") {
    return std::stoi(arg(1));
  } else if (command == "thread-read") {
    say("thread-read", read_from_early_thread(arg(1)));
    if (g_early.blocks_signals) say("thread-read-after-unblock", g_early.result_after_unblock);
    say("main-read", read_path(arg(1)));
  } else if (command == "sleep") {
    std::this_thread::sleep_for(std::chrono::milliseconds(std::stoi(arg(1))));
  } else {
    say("error", "unknown command " + command);
    return 2;
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const StartState start = record_start();
  sb::SelfRestriction restriction;
  sb::Level level = sb::Level::kNone;
  bool early_thread = false;
  int i = 1;
  for (; i < argc; ++i) {
    const std::string option = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "sandbox_probe: %s needs a value\n", option.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (option == "--") {
      ++i;
      break;
    }
    if (option == "--level") {
      level = sb::parse_level(value()).value_or(sb::Level::kNone);
    } else if (option == "--ro") {
      restriction.read_only.emplace_back(value());
    } else if (option == "--rw") {
      restriction.read_write.emplace_back(value());
    } else if (option == "--dev") {
      restriction.devices.emplace_back(value());
    } else if (option == "--deny-errno") {
      restriction.deny_errno = std::stoi(value());
    } else if (option == "--allow-network") {
      restriction.forbid_network = false;
    } else if (option == "--no-unix-sockets") {
      restriction.forbid_unix_sockets = true;
    } else if (option == "--thread") {
      early_thread = true;
    } else if (option == "--thread-blocking-signals") {
      early_thread = true;
      g_early.blocks_signals = true;
    } else {
      std::fprintf(stderr, "sandbox_probe: unknown option %s\n", option.c_str());
      return 2;
    }
  }
  if (i >= argc) {
    std::fprintf(stderr, "sandbox_probe: no command\n");
    return 2;
  }
  if (early_thread) {
    // Running (past glibc's start-up, which blocks signals) before restrict_self.
    sigset_t all;
    sigset_t saved;
    sigfillset(&all);
    if (g_early.blocks_signals) pthread_sigmask(SIG_SETMASK, &all, &saved);  // inherited by the thread
    pthread_create(&g_early.thread, nullptr, early_thread_main, nullptr);
    if (g_early.blocks_signals) pthread_sigmask(SIG_SETMASK, &saved, nullptr);
    pthread_mutex_lock(&g_early.mutex);
    while (!g_early.started) pthread_cond_wait(&g_early.wake, &g_early.mutex);
    pthread_mutex_unlock(&g_early.mutex);
  }
  try {
    say("restrict", sb::restrict_self(restriction, level));
  } catch (const std::exception& error) {
    say("restrict.error", error.what());
    return 3;
  }
  const int status = run_command(std::vector<std::string>(argv + i, argv + argc), start);
  if (early_thread && !g_early.done) {
    read_from_early_thread("/");  // let it end
  }
  if (early_thread) pthread_join(g_early.thread, nullptr);
  std::fflush(stdout);
  return status;
}
