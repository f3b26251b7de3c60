// spmv::sandbox: runs an untrusted program in a separate exec'd process,
// contained with the operating system's own mechanisms (namespaces, a
// distinct uid, rlimits, Landlock, seccomp). What each level gives and what
// it cannot prevent is tabled in grader/sandbox/README.md.
//
// Two halves:
//   - spawn() (the grader's side): namespaces, uid, rlimits, file
//     descriptors, environment, then execve of the program;
//   - restrict_self() (the program's side, after its privileged start-up):
//     Landlock and seccomp, never undone.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace spmv::sandbox {

// What failed, with the step and the system's reason, e.g.
// "clone(CLONE_NEWPID|CLONE_NEWNET|...): Operation not permitted".
class SandboxError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Weakest to strongest.
//   none:      fork + exec with the environment given and nothing else
//              (debugging only).
//   user:      an unprivileged caller: user + PID + network + mount
//              namespaces where the kernel lets an unprivileged user create
//              them, else a new session; Landlock; seccomp; rlimits; the
//              program keeps the caller's uid.
//   container: root where namespaces are refused (Docker's default seccomp
//              profile): a distinct uid, Landlock where allowed, seccomp,
//              rlimits; clean-up kills every process of that uid.
//   full:      root: new PID, network, mount, IPC and UTS namespaces, a
//              distinct uid, Landlock, seccomp, rlimits.
enum class Level { kNone, kUser, kContainer, kFull };

const char* level_name(Level level);  // "none", "user", "container", "full"
std::optional<Level> parse_level(std::string_view name);

// The strongest level this process can have here, found by trying in a
// throwaway child (cached per process and effective uid).
Level strongest_available();
// Empty when `level` is available here, else why not ("needs root",
// "Landlock: not supported by this kernel", ...).
std::string why_unavailable(Level level);
// Whether spawn() at level user gets its namespaces here (as this effective
// uid); false: a new session only (e.g. Ubuntu's AppArmor restriction of
// unprivileged user namespaces).
bool user_namespaces_usable();
// One line: what `level` gives on this machine, for reports.
std::string describe_level(Level level);
// The kernel's Landlock ABI version, 0 without Landlock. What it adds here:
// 1 files, 2 rename/link across folders, 3 truncate, 4 TCP bind/connect,
// 5 ioctl on devices, 6 signal and abstract-socket scopes (a program cannot
// signal a process outside its domain, the grader included), 7 logging.
int landlock_abi();

struct Limits {                   // 0 = leave as is
  std::uint64_t data_bytes = 0;   // RLIMIT_DATA (never RLIMIT_AS: the CUDA driver reserves huge ranges)
  std::uint64_t processes = 0;    // RLIMIT_NPROC (per uid: that is why uids are distinct)
  std::uint64_t open_files = 0;   // RLIMIT_NOFILE
  std::uint64_t cpu_seconds = 0;  // RLIMIT_CPU
  std::uint64_t file_bytes = 0;   // RLIMIT_FSIZE
  std::uint64_t core_bytes = 0;   // RLIMIT_CORE: always set, to this value (0: no core files)
};

struct Spec {
  Level level = Level::kFull;
  std::filesystem::path executable;  // absolute path, execve'd
  std::vector<std::string> argv;     // argv[0] included; world-readable at levels without a PID namespace
  std::vector<std::string> env;      // the whole environment ("K=V"), nothing inherited
  std::vector<int> pass_fds;         // become fds 3, 4, 5, ... in this order; every other fd is closed
  int output_fd = -1;                // becomes fds 1 and 2 (stdin is /dev/null); -1: /dev/null
  std::filesystem::path scratch;     // the only writable folder; the program's cwd; chowned to uid
  std::optional<uid_t> uid;          // run as uid and gid (root only; required at container and full);
                                     // its UidLease must outlive the Process (kill_all() kills by uid)
  Limits limits;
  // Files and folders made unreadable where the level has a mount namespace
  // (full, and user with namespaces): /dev/null is bound read-only over a
  // file, an empty read-only tmpfs of mode 000 over a folder. A path that
  // does not exist is skipped. Elsewhere only their permissions protect them
  // (see Process::notes()).
  std::vector<std::filesystem::path> hide;
  // Level user only: false forces the fallback without namespaces (a new
  // session), as on kernels that refuse unprivileged user namespaces.
  bool user_namespaces = true;
};

// How the program ended: exit(code) or a signal.
struct ExitStatus {
  bool signaled = false;
  int code = 0;    // valid when !signaled
  int signal = 0;  // valid when signaled
  static ExitStatus from_wait_status(int status);
  std::string describe() const;  // "exit 3", "signal 11 (Segmentation fault)"
};

// A spawned sandbox.
//
// With a PID namespace (full; user with namespaces) pid() is a tiny init
// (PID 1 inside) that forks the program, reaps everything, and when the
// program ends sends its raw wait status through a pipe (so a SIGSEGV of the
// program is reported as that signal), then exits, which kills every other
// process of the namespace. Without one the program is the child itself, in
// its own session; kill_all() kills its process group and, when a uid was
// given, every process of that uid.
//
// Init and the program get PR_SET_PDEATHSIG(SIGKILL): they die when the
// *thread* that called spawn() ends, so call it from a thread that outlives
// the Process (the main thread).
class Process {
 public:
  Process() = default;
  Process(Process&& other) noexcept;
  Process& operator=(Process&& other) noexcept;
  Process(const Process&) = delete;
  Process& operator=(const Process&) = delete;
  ~Process();  // kill_all()

  pid_t pid() const { return pid_; }
  Level level() const { return level_; }
  bool has_pid_namespace() const { return has_init_; }
  // What this level could not apply of the Spec, one sentence each (e.g. hide
  // without a mount namespace).
  const std::vector<std::string>& notes() const { return notes_; }

  // Non-blocking: how the program ended once it has, std::nullopt while it
  // runs. With an init: known as soon as init has sent it.
  std::optional<ExitStatus> poll();
  // Blocks until the program ends (or `timeout_ms` passes: std::nullopt).
  std::optional<ExitStatus> wait(int timeout_ms);
  // Kills everything of the sandbox (program, its children, daemons), reaps,
  // returns how the program ended if known (SIGKILL when it was killed).
  std::optional<ExitStatus> kill_all();
  // SIGSTOP / SIGCONT every process of the sandbox: all processes of the
  // namespace (with a PID namespace), all processes of the uid (when one was
  // given), else the program's process group and descendants. Cannot reach,
  // at none and at user without namespaces, a process that left the process
  // group and was orphaned (a setsid daemon). Init itself is never stopped.
  void stop();
  void resume();

 private:
  friend Process spawn(const Spec&);
  void signal_all(int signal);
  void read_status();
  void reap(bool block);

  pid_t pid_ = -1;
  Level level_ = Level::kNone;
  bool has_init_ = false;
  int status_fd_ = -1;  // init -> grader: the program's raw wait status
  std::optional<uid_t> uid_;
  std::optional<ExitStatus> program_status_;
  std::optional<int> child_wait_status_;  // pid_'s own, once reaped
  std::vector<std::string> notes_;
};

// Throws SandboxError naming the step that failed.
Process spawn(const Spec& spec);

// Called by the sandboxed program itself after its privileged start-up (CUDA
// context created, so the driver's files are open): Landlock and seccomp.
// Never undone.
struct SelfRestriction {
  std::vector<std::filesystem::path>
      read_only;  // readable + executable trees (/usr /lib /lib64 /etc, the CUDA lib folder)
  std::vector<std::filesystem::path> read_write;  // e.g. the scratch folder (cwd)
  // Folders whose entries may be listed, not read: with rules on some of
  // their entries, a tree is granted but for a few files (spmv-sandbox
  // --except).
  std::vector<std::filesystem::path> list_only;
  // Read-write device nodes (/dev/nvidia*, /dev/null); a '*' in the last
  // component is expanded. With Landlock ABI 5 ioctl on them is granted.
  std::vector<std::filesystem::path> devices;
  bool forbid_exec = true;     // execve/execveat denied after this point
  bool forbid_network = true;  // socket() of any family but AF_UNIX denied
  // socket(AF_UNIX) denied too. Landlock (up to ABI 7) does not govern
  // connect() to a path-named UNIX socket: without this, only the socket
  // file's permissions stand between the program and, at level user, the
  // user's own sockets (D-Bus session, ssh-agent). Off by default: a driver
  // may talk to its daemons (nvidia-persistenced) that way. Fds passed
  // by spawn() and socketpair() are unaffected.
  bool forbid_unix_sockets = false;
  int deny_errno = 0;  // errno of denied calls; 0: EPERM (tests pick a distinctive one)
  // Left out for a program run under a tool that injects itself into it
  // (compute-sanitizer for spmv-grade --memcheck), whose library stops
  // working under it; seccomp, the namespaces, the uid and the rlimits stay.
  bool landlock = true;
};

// Applies Landlock (every thread it can reach: the others get signal
// SIGRTMAX-2, whose handler stays installed) and seccomp (every thread),
// sets PR_SET_NO_NEW_PRIVS and PR_SET_DUMPABLE 0. Returns what was applied,
// e.g. "landlock ABI 7 (fs, tcp, signal+abstract-unix scope; 4/4 threads),
// seccomp (31 rules)", or throws SandboxError. Landlock missing is an error
// only at full. At none nothing is applied ("none: nothing applied").
std::string restrict_self(const SelfRestriction& restriction, Level level);

// The system calls restrict_self() denies outright (with deny_errno), for
// reports and tests. Besides them it denies execve and execveat (with
// forbid_exec), clone3 (ENOSYS: libc falls back to clone), clone with any
// CLONE_NEW* flag, prctl(PR_SET_DUMPABLE), ioctl TIOCSTI and TIOCLINUX, and
// socket() of any family but AF_UNIX (with forbid_network).
const std::vector<std::string>& denied_syscalls();

// A uid (and the same gid) for one sandbox at a time, distinct among all
// sandboxes alive on the machine, several graders included: the first slot
// of [kUidBase, kUidBase + kUidSlots) whose lock file could be flock()ed
// (LOCK_EX|LOCK_NB) in a root-only folder (/run/spmv-lab/uids, else
// /tmp/spmv-lab-uids). Held until destroyed. Acquiring kills any process
// left with that uid. Root only; throws otherwise.
class UidLease {
 public:
  static constexpr uid_t kUidBase = 0x5F5E100;  // 100000000: far above distribution and subuid ranges
  static constexpr unsigned kUidSlots = 1024;

  static UidLease acquire();
  UidLease(UidLease&& other) noexcept;
  UidLease& operator=(UidLease&& other) noexcept;
  UidLease(const UidLease&) = delete;
  UidLease& operator=(const UidLease&) = delete;
  ~UidLease();

  uid_t uid() const { return uid_; }
  gid_t gid() const { return static_cast<gid_t>(uid_); }
  static std::filesystem::path lock_folder();

 private:
  UidLease(uid_t uid, int lock_fd) : uid_(uid), lock_fd_(lock_fd) {}
  uid_t uid_ = 0;
  int lock_fd_ = -1;
};

// Every process whose real uid is `uid` gets SIGKILL, repeated until none is
// left or `timeout_ms` passes; returns the pids still there (empty: all
// gone). Root only; refuses uid 0 and the caller's own uid. Used by
// kill_all() and UidLease::acquire().
std::vector<pid_t> kill_uid(uid_t uid, int timeout_ms = 2000);
// The pids of live (not zombie) processes whose real uid is `uid`.
std::vector<pid_t> processes_of_uid(uid_t uid);

}  // namespace spmv::sandbox
