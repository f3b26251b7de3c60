// The sandbox's side of spawn(), from clone() to execve(). See child.hpp for
// the rules this code follows (no allocation, raw system calls).
#include "child.hpp"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#if __has_include(<sys/rseq.h>)
#include <sys/rseq.h>
#endif

#include <cerrno>
#include <climits>
#include <cstring>

namespace spmv::sandbox::detail {
namespace {

// The error pipe's current number (it moves when the fds are arranged).
int g_error_fd = -1;

void append(char* buffer, std::size_t size, std::size_t& used, const char* text) {
  while (text != nullptr && *text != '\0' && used + 1 < size) buffer[used++] = *text++;
  buffer[used] = '\0';
}

[[noreturn]] void fail(const char* step, const char* detail = nullptr) {
  ChildError report{};
  report.error = errno;
  std::size_t used = 0;
  append(report.step, sizeof report.step, used, step);
  if (detail != nullptr) {
    append(report.step, sizeof report.step, used, " ");
    append(report.step, sizeof report.step, used, detail);
  }
  if (g_error_fd >= 0) {
    [[maybe_unused]] const ssize_t written = write(g_error_fd, &report, sizeof report);
  }
  _exit(127);
}

std::size_t length(const char* text) {
  std::size_t n = 0;
  while (text[n] != '\0') ++n;
  return n;
}

void write_file(const char* path, const char* text) {
  const int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) fail("open", path);
  const std::size_t n = length(text);
  if (write(fd, text, n) != static_cast<ssize_t>(n)) fail("write", path);
  close(fd);
}

// Remounts the bind mount at `path` read-only, keeping the flags the kernel
// locks in a user namespace (nosuid, nodev, noexec, atime) as they are.
void remount_read_only(const char* path) {
  struct statvfs info {};
  if (statvfs(path, &info) != 0) fail("statvfs", path);
  unsigned long flags = MS_REMOUNT | MS_BIND | MS_RDONLY;
  if (info.f_flag & ST_NOSUID) flags |= MS_NOSUID;
  if (info.f_flag & ST_NODEV) flags |= MS_NODEV;
  if (info.f_flag & ST_NOEXEC) flags |= MS_NOEXEC;
  if (info.f_flag & ST_NOATIME) flags |= MS_NOATIME;
  if (info.f_flag & ST_NODIRATIME) flags |= MS_NODIRATIME;
  if (info.f_flag & ST_RELATIME) flags |= MS_RELATIME;
  if (mount(nullptr, path, nullptr, flags, nullptr) != 0) fail("remount read-only", path);
}

void set_up_mounts(const ChildPlan& plan) {
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) fail("mount(/, MS_REC|MS_PRIVATE)");
  // The new PID namespace's own /proc: other processes are not in it.
  if (plan.mount_proc && mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) {
    fail("mount proc on /proc");
  }
  for (int i = 0; i < plan.hidden_count; ++i) {
    const HiddenPath& hidden = plan.hidden[i];
    if (hidden.is_folder) {
      if (mount("tmpfs", hidden.path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=4k,mode=000") != 0) {
        fail("mount an empty tmpfs over", hidden.path);
      }
    } else {
      if (mount("/dev/null", hidden.path, nullptr, MS_BIND, nullptr) != 0) fail("bind /dev/null over", hidden.path);
      remount_read_only(hidden.path);
    }
  }
}

// fds 0, 1, 2, the passed fds from 3 on, then the error pipe (and init's
// status pipe) right after them; every other fd closed. Returns the first
// fd after them.
int arrange_fds(const ChildPlan& plan) {
  const int count = 3 + plan.pass_count + 1 + (plan.status_fd >= 0 ? 1 : 0);
  int sources[3 + 64 + 2];
  if (plan.pass_count > 64) {
    errno = E2BIG;
    fail("more than 64 fds to pass");
  }
  const int output = plan.output_fd >= 0 ? plan.output_fd : plan.devnull_fd;
  sources[0] = plan.devnull_fd;
  sources[1] = output;
  sources[2] = output;
  for (int i = 0; i < plan.pass_count; ++i) sources[3 + i] = plan.pass_fds[i];
  sources[3 + plan.pass_count] = plan.error_fd;
  if (plan.status_fd >= 0) sources[4 + plan.pass_count] = plan.status_fd;

  // Copies above every source and target first, so no dup2 below closes a
  // source that a later target still needs.
  int base = count;
  for (int i = 0; i < count; ++i) base = sources[i] >= base ? sources[i] + 1 : base;
  int copies[3 + 64 + 2];
  for (int i = 0; i < count; ++i) {
    copies[i] = fcntl(sources[i], F_DUPFD, base);
    if (copies[i] < 0) fail("fcntl(F_DUPFD)");
  }
  for (int i = 0; i < count; ++i) {
    if (dup2(copies[i], i) < 0) fail("dup2");
  }
  // The pipes close on exec; the program's own fds stay open.
  for (int i = 3 + plan.pass_count; i < count; ++i) {
    if (fcntl(i, F_SETFD, FD_CLOEXEC) != 0) fail("fcntl(F_SETFD)");
  }
  g_error_fd = 3 + plan.pass_count;
  if (syscall(SYS_close_range, count, ~0U, 0) != 0) {
    // Before Linux 5.9: one by one.
    const long open_max = sysconf(_SC_OPEN_MAX);
    for (long fd = count; fd < (open_max > 0 ? open_max : 65536); ++fd) close(static_cast<int>(fd));
  }
  return count;
}

// The program's last steps: limits, uid, cwd, then execve.
[[noreturn]] void become_program(const ChildPlan& plan, pid_t expected_parent) {
  for (int i = 0; i < plan.limit_count; ++i) {
    const auto resource = static_cast<__rlimit_resource>(plan.limits[i].resource);
    rlimit limit{plan.limits[i].value, plan.limits[i].value};
    if (setrlimit(resource, &limit) != 0) {
      // Unprivileged: no higher than the hard limit already there.
      rlimit current{};
      if (errno != EPERM || getrlimit(resource, &current) != 0) fail("setrlimit");
      limit.rlim_cur = limit.rlim_max = current.rlim_max < limit.rlim_max ? current.rlim_max : limit.rlim_max;
      if (setrlimit(resource, &limit) != 0) fail("setrlimit");
    }
  }
  if (plan.change_uid) {
    if (syscall(SYS_setgroups, 0, nullptr) != 0) fail("setgroups({})");
    if (syscall(SYS_setresgid, plan.gid, plan.gid, plan.gid) != 0) fail("setresgid");
    if (syscall(SYS_setresuid, plan.uid, plan.uid, plan.uid) != 0) fail("setresuid");
  }
  // A credential change clears the parent-death signal: set it after.
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) fail("prctl(PR_SET_PDEATHSIG)");
  if (expected_parent > 0 && getppid() != expected_parent) _exit(127);  // the parent is already gone
  if (plan.scratch != nullptr && chdir(plan.scratch) != 0) fail("chdir", plan.scratch);
  if (plan.no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail("prctl(PR_SET_NO_NEW_PRIVS)");
  if (plan.executable == nullptr) _exit(0);  // dry run
  execve(plan.executable, plan.argv, plan.envp);
  fail("execve", plan.executable);
}

// A hexadecimal number at `c`, which moves past it.
unsigned long parse_hex(const char*& c, const char* end) {
  unsigned long value = 0;
  for (; c < end; ++c) {
    const char digit = static_cast<char>(*c | 0x20);
    if (digit >= '0' && digit <= '9') {
      value = value * 16 + static_cast<unsigned long>(digit - '0');
    } else if (digit >= 'a' && digit <= 'f') {
      value = value * 16 + static_cast<unsigned long>(digit - 'a' + 10);
    } else {
      break;
    }
  }
  return value;
}

// System calls made without libc, for init once it has let go of the
// grader's memory: libc's wrappers may reach memory that is gone (errno in
// the thread's block, the loader's tables when a symbol is bound lazily).
#if defined(__x86_64__)
#define SPMV_SANDBOX_RAW_SYSCALLS 1
long raw_syscall(long number, long a = 0, long b = 0, long c = 0, long d = 0) {
  long result;
  register long r10 asm("r10") = d;
  asm volatile("syscall" : "=a"(result) : "a"(number), "D"(a), "S"(b), "d"(c), "r"(r10) : "rcx", "r11", "memory");
  return result;
}
unsigned long thread_pointer() {
  unsigned long pointer;
  asm("mov %%fs:0, %0" : "=r"(pointer));
  return pointer;
}
#elif defined(__aarch64__)
#define SPMV_SANDBOX_RAW_SYSCALLS 1
long raw_syscall(long number, long a = 0, long b = 0, long c = 0, long d = 0) {
  register long x8 asm("x8") = number;
  register long x0 asm("x0") = a;
  register long x1 asm("x1") = b;
  register long x2 asm("x2") = c;
  register long x3 asm("x3") = d;
  asm volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
  return x0;
}
unsigned long thread_pointer() {
  unsigned long pointer;
  asm("mrs %0, tpidr_el0" : "=r"(pointer));
  return pointer;
}
#else
#define SPMV_SANDBOX_RAW_SYSCALLS 0
#endif

}  // namespace

int ranges_to_let_go(const char* line, const char* end, const KeptMemory& kept, MemoryRange out[2]) {
  constexpr unsigned long kLarge = 1UL << 20;
  // Kept around the thread pointer: its static TLS below (a few kB), its
  // descriptor above (about 2 kB), with room to spare, in whole pages.
  constexpr unsigned long kPage = 4096;
  constexpr unsigned long kBelowThread = 1UL << 20;
  constexpr unsigned long kAboveThread = 64UL << 10;
  const char* c = line;
  const unsigned long start = parse_hex(c, end);
  if (c == end || *c != '-') return 0;
  ++c;
  const unsigned long stop = parse_hex(c, end);
  // Past the perms, offset and dev to the inode.
  for (int field = 0; field < 3 && c < end; ++field) {
    while (c < end && *c == ' ') ++c;
    while (c < end && *c != ' ') ++c;
  }
  while (c < end && *c == ' ') ++c;
  const bool inode_zero = c < end && *c == '0' && (c + 1 == end || c[1] == ' ');
  while (c < end && *c != ' ') ++c;
  while (c < end && *c == ' ') ++c;
  const bool unnamed = c == end;
  const bool heap = end - c == 6 && std::memcmp(c, "[heap]", 6) == 0;
  if (!inode_zero || !(unnamed || heap) || stop <= start || stop - start < kLarge) return 0;
  if (start <= kept.stack && kept.stack < stop) return 0;
  const unsigned long below = kept.thread_block > kBelowThread ? kept.thread_block - kBelowThread : 0;
  const unsigned long keep_from = below & ~(kPage - 1);
  const unsigned long keep_to = (kept.thread_block + kAboveThread + kPage - 1) & ~(kPage - 1);
  if (kept.thread_block == 0 || keep_to <= start || stop <= keep_from) {
    out[0] = {start, stop};
    return 1;
  }
  int count = 0;
  if (start < keep_from) out[count++] = {start, keep_from};
  if (keep_to < stop) out[count++] = {keep_to, stop};
  return count;
}

namespace {

// The kernel writes into a thread's restartable-sequences area (in the
// thread's block, registered by glibc and inherited by init) whenever it
// resumes the thread after a preemption, and kills it with SIGSEGV if the
// area is gone. Init ends the registration before it lets go of memory
// (which keeps the thread's block anyway, should this fail).
void end_restartable_sequences() {
#if SPMV_SANDBOX_RAW_SYSCALLS && defined(RSEQ_SIG) && defined(SYS_rseq)
  if (__rseq_size == 0) return;  // not registered
  const long area = static_cast<long>(thread_pointer() + static_cast<unsigned long>(__rseq_offset));
  // Registered with 32 bytes, whatever size glibc reports as in use.
  const long lengths[] = {static_cast<long>(__rseq_size), 32};
  for (const long length : lengths) {
    if (raw_syscall(SYS_rseq, area, length, RSEQ_FLAG_UNREGISTER, RSEQ_SIG) == 0) return;
  }
#endif
}

// Init's copy of the grader's memory, let go once the program is exec'd:
// its large anonymous mappings (the heap, the grader's arrays, other
// threads' stacks) but what init still runs on (ranges_to_let_go). Init
// needs none of them (it waits, writes a status and exits, by raw system
// calls), and otherwise the grader's pages stay shared with it for the
// runner's life and are torn down only when init dies, inside the end of a
// runner that the grader waits for. Small mappings and files are kept
// (libraries' data); if /proc/self/maps cannot be read, nothing is let go.
void let_go_of_grader_memory() {
#if SPMV_SANDBOX_RAW_SYSCALLS
  constexpr int kMaxRanges = 1024;
  // On this stack, which is kept: a program's static memory may be one of
  // the mappings let go.
  MemoryRange ranges[kMaxRanges];
  int count = 0;
  const KeptMemory kept{reinterpret_cast<unsigned long>(&count), thread_pointer()};
  const int maps = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
  if (maps < 0) return;
  char buffer[4096];
  std::size_t held = 0;
  for (;;) {
    const ssize_t got = read(maps, buffer + held, sizeof buffer - held);
    if (got <= 0) break;
    held += static_cast<std::size_t>(got);
    std::size_t line = 0;
    for (std::size_t i = 0; i < held; ++i) {
      if (buffer[i] != '\n') continue;
      if (count + 2 <= kMaxRanges) count += ranges_to_let_go(buffer + line, buffer + i, kept, ranges + count);
      line = i + 1;
    }
    // A line cut by the buffer's end moves to its front.
    for (std::size_t i = line; i < held; ++i) buffer[i - line] = buffer[i];
    held -= line;
    if (held == sizeof buffer) break;  // a line longer than the buffer: stop reading
  }
  close(maps);
  for (int k = 0; k < count; ++k) {
    raw_syscall(SYS_munmap, static_cast<long>(ranges[k].start), static_cast<long>(ranges[k].end - ranges[k].start));
  }
#endif
}

// The program's side of init's fork (run_init).
struct ProgramStart {
  const ChildPlan* plan;
  int status_fd;
};

int start_program(void* argument) {
  const auto* start = static_cast<const ProgramStart*>(argument);
  close(start->status_fd);
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) fail("prctl(PR_SET_PDEATHSIG)");
  become_program(*start->plan, 1);
}

// The program's stack while it shares init's memory (only init forks it,
// once).
alignas(64) char g_program_stack[64 * 1024];

// PID 1 of the namespace: forks the program, reaps every process, sends the
// program's raw wait status to the grader, then exits (which kills the rest
// of the namespace).
//
// The program shares init's memory until its execve (CLONE_VM | CLONE_VFORK,
// init waiting, the program on a stack of its own): init's memory is a copy
// of the whole grader's, whose page tables a plain fork would copy once more
// and the program's execve tear down again, at a cost that grows with the
// grader's memory (with 1 GB: spawn() about 65 ms instead of 3).
[[noreturn]] void run_init(const ChildPlan& plan, int status_fd) {
  ProgramStart start{&plan, status_fd};
  const pid_t program =
      clone(start_program, g_program_stack + sizeof g_program_stack, CLONE_VM | CLONE_VFORK | SIGCHLD, &start);
  if (program < 0) fail("fork the program");
  close(g_error_fd);  // the grader reads the pipe to its end: only the program's copy is left
  // No signal reaches init's handlers, copies of the grader's in memory
  // about to be let go (the program was forked with the mask it had).
  sigset_t all;
  sigfillset(&all);
  sigprocmask(SIG_BLOCK, &all, nullptr);
  end_restartable_sequences();
  let_go_of_grader_memory();
  for (;;) {
    int status = 0;
#if SPMV_SANDBOX_RAW_SYSCALLS
    const long ended = raw_syscall(SYS_wait4, -1, reinterpret_cast<long>(&status), __WALL, 0);
    if (ended == program) {
      raw_syscall(SYS_write, status_fd, reinterpret_cast<long>(&status), sizeof status);
      raw_syscall(SYS_exit_group, 0);
    }
    if (ended < 0 && ended != -EINTR) raw_syscall(SYS_exit_group, 126);
#else
    const pid_t ended = waitpid(-1, &status, __WALL);
    if (ended == program) {
      [[maybe_unused]] const ssize_t written = write(status_fd, &status, sizeof status);
      _exit(0);
    }
    if (ended < 0 && errno != EINTR) _exit(126);
#endif
  }
}

}  // namespace

void run_child(const ChildPlan& plan) {
  g_error_fd = plan.error_fd;
  const pid_t parent_seen = getppid();  // 0 inside a new PID namespace
  if (plan.clone_flags & CLONE_NEWUSER) {
    write_file("/proc/self/setgroups", "deny");
    write_file("/proc/self/uid_map", plan.uid_map);
    write_file("/proc/self/gid_map", plan.gid_map);
  }
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0) fail("prctl(PR_SET_PDEATHSIG)");
  if (setsid() < 0) fail("setsid");
  if (plan.clone_flags & CLONE_NEWNS) set_up_mounts(plan);

  const bool has_init = (plan.clone_flags & CLONE_NEWPID) != 0;
  if (plan.executable == nullptr && has_init) become_program(plan, 0);  // dry run: uid change included
  arrange_fds(plan);
  if (has_init) run_init(plan, 4 + plan.pass_count);
  become_program(plan, parent_seen);
}

}  // namespace spmv::sandbox::detail
