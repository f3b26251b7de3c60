// Hostile programs at every level: each test runs sandbox_probe (which
// restricts itself as the runner will, then attacks) through spawn() in each
// mode, and asserts what the mode prevents and, where it cannot, what
// happens instead (grader/sandbox/README.md tables both). A mode this
// machine cannot give is skipped with the reason.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "harness.hpp"

namespace spmv::sandbox::test {

extern char g_memory_secret[];

namespace {

std::string errno_text(const char* name, int number) {
  return std::string("errno:") + name + "(" + std::to_string(number) + ")";
}
const std::string kEacces = errno_text("EACCES", EACCES);
const std::string kEperm = errno_text("EPERM", EPERM);
constexpr int kTestErrno = EHWPOISON;  // no kernel path returns it for these calls: only the filter does
const std::string kFilterErrno = errno_text("EHWPOISON", EHWPOISON);

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string own_namespace(const char* name) { return fs::read_symlink(fs::path("/proc/self/ns") / name).string(); }

class Hostile : public testing::TestWithParam<Mode> {
 protected:
  // What this kernel's Landlock gives (the GPU machine's may be older).
  static bool landlock() { return landlock_abi() >= 1; }
  static bool landlock_tcp() { return landlock_abi() >= 4; }
  static bool signal_scope() { return landlock_abi() >= 6; }

  void SetUp() override {
    harness_.emplace(GetParam());
    const std::string why = harness_->unavailable();
    if (!why.empty()) GTEST_SKIP() << "level " << GetParam().name << " is not available here: " << why;
  }
  Harness& h() { return *harness_; }
  const Mode& mode() const { return GetParam(); }

  // The probe ran to its end and exited with 0.
  static void expect_clean_exit(const Outcome& outcome) {
    EXPECT_EQ(outcome.reported("done"), "1") << outcome.dump();
    EXPECT_EQ(outcome.reported("status"), "exit 0") << outcome.dump();
    EXPECT_EQ(outcome.reported("leftover"), "") << outcome.dump();
  }

 private:
  std::optional<Harness> harness_;
};

TEST_P(Hostile, IdentityAndNamespaces) {
  ProbeOptions options;
  options.read_only = {"/proc"};
  const Outcome o = h().probe({"whoami"}, options);
  expect_clean_exit(o);
  EXPECT_EQ(o["uid"], o.reported("sandbox_uid")) << o.dump();
  EXPECT_EQ(o["euid"], o.reported("sandbox_uid")) << o.dump();
  EXPECT_EQ(o["cwd"], h().scratch().string()) << o.dump();
  EXPECT_EQ(o["rlimit_core"], "0") << o.dump();
  if (mode().has_distinct_uid()) {
    EXPECT_EQ(o["gid"], o.reported("sandbox_uid")) << o.dump();
    EXPECT_EQ(o["groups"], "") << o.dump();
  }
  EXPECT_EQ(o["no_new_privs"], mode().restricted() ? "1" : "0") << o.dump();
  EXPECT_EQ(o["seccomp"], mode().restricted() ? "2" : "0") << o.dump();
  EXPECT_EQ(o["dumpable"], mode().restricted() ? "0" : "1") << o.dump();
  // Container emulates honestly: no namespace at all, even where root could have them.
  for (const char* ns : {"pid", "net", "mnt", "ipc", "uts"}) {
    if (mode().has_pid_namespace()) {
      EXPECT_NE(o["ns." + std::string(ns)], own_namespace(ns)) << ns << "\n" << o.dump();
    } else {
      EXPECT_EQ(o["ns." + std::string(ns)], own_namespace(ns)) << ns << "\n" << o.dump();
    }
  }
  EXPECT_EQ(o["ns.user"] != own_namespace("user"), mode().level == Level::kUser && mode().user_namespaces) << o.dump();
  if (mode().has_pid_namespace()) {
    EXPECT_EQ(o["pid"], "2") << "PID 1 is the sandbox's init\n" << o.dump();
  } else {
    EXPECT_EQ(o["sid_is_pid"], "1") << "its own session\n" << o.dump();
  }
}

TEST_P(Hostile, EnvironmentIsExactlyTheSpec) {
  setenv("SPMV_SANDBOX_TEST_SECRET", "must not leak", 1);
  ProbeOptions options;
  options.env = std::vector<std::string>{"A=1", "B=two words", "PATH=/usr/bin"};
  const Outcome o = h().probe({"env"}, options);
  expect_clean_exit(o);
  EXPECT_EQ(o.all("env"), *options.env) << o.dump();
}

TEST_P(Hostile, OnlyStandardAndPassedFdsAreOpen) {
  const fs::path leak = h().tree().file("leak.txt", "a file the grader holds open\n");
  const fs::path fd4_file = h().scratch().parent_path() / "fd4.txt";
  const Outcome o = h().run([&](Grader& run) {
    const int leaked = open(leak.c_str(), O_RDONLY);  // no O_CLOEXEC: must not reach the program anyway
    int pipe_fds[2];
    if (pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe2");
    const int file = open(fd4_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    ProbeOptions options;
    options.pass_fds = {pipe_fds[1], file};
    run.run_probe({"fds"}, options);
    close(pipe_fds[1]);
    char buffer[256] = {};
    const ssize_t n = read(pipe_fds[0], buffer, sizeof buffer - 1);
    run.report("pipe", n > 0 ? std::string(buffer, static_cast<std::size_t>(n)) : "");
    run.report("leaked_fd", std::to_string(leaked));
  });
  expect_clean_exit(o);
  EXPECT_EQ(o["fds"], "0 1 2 3 4") << o.dump();
  EXPECT_EQ(o["fd0"], "chr:1:3") << "stdin is /dev/null\n" << o.dump();
  EXPECT_EQ(o["fd1"], "file") << o.dump();
  EXPECT_EQ(o["fd2"], "file") << o.dump();
  EXPECT_EQ(o["fd3"], "fifo") << o.dump();
  EXPECT_EQ(o["fd4"], "file") << o.dump();
  EXPECT_EQ(o.reported("pipe"), "written to fd 3 ") << o.dump();
  EXPECT_EQ(read_text(fd4_file), "written to fd 4\n");
}

// Every deny-list entry answers with the filter's errno (a distinctive one
// here, so a kernel refusal cannot pass for the filter's); at none the calls
// reach the kernel, with arguments that make them do nothing.
TEST_P(Hostile, DenyListAnswersWithTheFiltersErrno) {
  ProbeOptions options;
  options.probe_flags = {"--deny-errno", std::to_string(kTestErrno)};
  const Outcome o = h().probe({"syscalls"}, options);
  expect_clean_exit(o);
  std::vector<std::string> names = denied_syscalls();
  for (const char* extra :
       {"execve", "execveat", "prctl(PR_SET_DUMPABLE)", "ioctl(TIOCSTI)", "ioctl(TIOCSTI|1<<32)", "ioctl(TIOCLINUX)",
        "socket(AF_INET)", "socket(AF_INET6)", "clone(CLONE_NEWNS)", "clone(CLONE_NEWCGROUP)", "clone(CLONE_NEWUTS)",
        "clone(CLONE_NEWIPC)", "clone(CLONE_NEWUSER)", "clone(CLONE_NEWPID)", "clone(CLONE_NEWNET)"}) {
    names.emplace_back(extra);
  }
  for (const auto& name : names) {
    const std::string result = o["syscall." + name];
    ASSERT_FALSE(result.empty() || result == "not-probed") << name << " has no probe\n" << o.dump();
    if (mode().restricted()) {
      EXPECT_EQ(result, kFilterErrno) << name;
    } else {
      EXPECT_NE(result, kFilterErrno) << name;
    }
  }
  // clone3 hides its flags from the filter: ENOSYS sends libc back to clone.
  if (mode().restricted()) {
    EXPECT_EQ(o["syscall.clone3"], errno_text("ENOSYS", ENOSYS));
  } else {
    EXPECT_NE(o["syscall.clone3"], errno_text("ENOSYS", ENOSYS));
  }
  for (const char* allowed : {"allowed.fork", "allowed.thread", "allowed.socket(AF_UNIX)",
                              "allowed.prctl(PR_GET_DUMPABLE)", "allowed.getppid"}) {
    EXPECT_EQ(o[allowed], "ok") << allowed << "\n" << o.dump();
  }
}

// A system call through the 32-bit entry is of another architecture, which
// the filter does not describe: the process is killed.
TEST_P(Hostile, ThirtyTwoBitSystemCallKills) {
#if !defined(__x86_64__)
  GTEST_SKIP() << "x86-64 only";
#endif
  const Outcome o = h().probe({"int80"});
  if (mode().restricted()) {
    EXPECT_EQ(o.reported("status.signal"), std::to_string(SIGSYS)) << o.dump();
    EXPECT_EQ(o["int80"], "") << o.dump();
  } else {
    EXPECT_EQ(o.reported("status"), "exit 0") << o.dump();
    // "ok", or ENOSYS where the kernel has no 32-bit emulation.
    EXPECT_NE(o["int80"], "") << o.dump();
  }
}

TEST_P(Hostile, DeniedCallsSayEpermByDefault) {
  const Outcome o = h().probe({"syscalls"});
  expect_clean_exit(o);
  if (!mode().restricted()) return;
  for (const char* name :
       {"ptrace", "unshare", "mount", "bpf", "io_uring_setup", "execve", "socket(AF_INET)", "clone(CLONE_NEWUSER)"}) {
    EXPECT_EQ(o["syscall." + std::string(name)], kEperm) << name;
  }
  EXPECT_EQ(o["syscall.clone3"], errno_text("ENOSYS", ENOSYS));
}

TEST_P(Hostile, PtraceOfTheParent) {
  const Outcome o = h().probe({"ptrace-attach", "parent"});
  expect_clean_exit(o);
  EXPECT_FALSE(o.harness_stopped) << o.dump();
  EXPECT_EQ(o["ptrace"], mode().restricted() ? kEperm : "ok") << o.dump();
}

// Whether the program's parent is safe from its signals: another uid (init
// at full, the grader at container), or Landlock's signal scope (ABI 6).
// At user with namespaces and no scope, the parent is the namespace's init,
// which ignores signals from inside it that it has no handler for.
TEST_P(Hostile, KillOfTheParent) {
  const Outcome o = h().probe({"kill", "parent", std::to_string(SIGKILL)});
  const bool refused = mode().has_distinct_uid() || (mode().restricted() && signal_scope());
  if (!refused && !mode().has_pid_namespace()) {
    EXPECT_TRUE(o.harness_killed_by(SIGKILL)) << "the program kills its grader\n" << o.dump();
    return;
  }
  expect_clean_exit(o);
  EXPECT_EQ(o["kill"], refused ? kEperm : "ok") << o.dump();
}

TEST_P(Hostile, StopOfTheParent) {
  const Outcome o = h().probe({"kill", "parent", std::to_string(SIGSTOP)});
  const bool refused = mode().has_distinct_uid() || (mode().restricted() && signal_scope());
  if (!refused && !mode().has_pid_namespace()) {
    EXPECT_TRUE(o.harness_stopped) << "the program stops its grader\n" << o.dump();
    return;
  }
  expect_clean_exit(o);
  EXPECT_FALSE(o.harness_stopped) << o.dump();
  EXPECT_EQ(o["kill"], refused ? kEperm : "ok") << o.dump();
}

TEST_P(Hostile, KillOfAnotherProcessOfTheGrader) {
  const Outcome o = h().run([](Grader& run) {
    const pid_t victim = run.start_victim();
    run.run_probe({"kill", std::to_string(victim), std::to_string(SIGKILL)});
    run.report("victim_alive", run.victim_alive(victim) ? "1" : "0");
  });
  expect_clean_exit(o);
  if (mode().has_pid_namespace()) {
    EXPECT_EQ(o["kill"], errno_text("ESRCH", ESRCH)) << "not in the namespace\n" << o.dump();
  } else if (mode().has_distinct_uid() || (mode().restricted() && signal_scope())) {
    EXPECT_EQ(o["kill"], kEperm) << o.dump();
  } else {
    EXPECT_EQ(o["kill"], "ok") << o.dump();
    EXPECT_EQ(o.reported("victim_alive"), "0") << o.dump();
    return;
  }
  EXPECT_EQ(o.reported("victim_alive"), "1") << o.dump();
}

// /proc of the grader, with /proc readable (the worst case a runner may grant).
TEST_P(Hostile, ProcFilesOfTheGrader) {
  char address[32];
  std::snprintf(address, sizeof address, "%lx", reinterpret_cast<unsigned long>(g_memory_secret));
  const Outcome o = h().run([&](Grader& run) {
    ProbeOptions options;
    options.read_only = {"/proc"};
    run.run_probe({"proc", std::to_string(run.harness_pid()), address}, options);
  });
  expect_clean_exit(o);
  if (!mode().restricted()) {
    EXPECT_EQ(o["proc.mem"], "ok:" + std::string(g_memory_secret)) << o.dump();
    EXPECT_EQ(o["proc.environ"].rfind("ok:", 0), 0u) << o.dump();
    return;
  }
  if (mode().has_pid_namespace()) {
    // The new /proc shows the namespace's processes only.
    for (const char* file : {"proc.cmdline", "proc.environ", "proc.mem"}) {
      EXPECT_EQ(o[file], errno_text("ENOENT", ENOENT)) << file << "\n" << o.dump();
    }
    return;
  }
  // cmdline is world-readable: argv must hold nothing secret.
  EXPECT_EQ(o["proc.cmdline"].rfind("ok:", 0), 0u) << o.dump();
  EXPECT_EQ(o["proc.environ"], kEacces) << o.dump();
  EXPECT_EQ(o["proc.mem"], kEacces) << o.dump();
}

TEST_P(Hostile, ReadOutsideTheAllowedTrees) {
  const fs::path secret = h().tree().file("outside/secret.txt", "spmv-file-secret", 0644);
  const Outcome o = h().probe({"read", "/etc/passwd", secret.string()});
  expect_clean_exit(o);
  const auto reads = o.all("read");
  ASSERT_EQ(reads.size(), 2u) << o.dump();
  EXPECT_EQ(reads[0].rfind("ok:", 0), 0u) << "an allowed tree stays readable\n" << o.dump();
  EXPECT_EQ(reads[1], mode().restricted() && landlock() ? kEacces : "ok:spmv-file-secret") << o.dump();
}

TEST_P(Hostile, WriteOutsideTheScratchFolder) {
  const fs::path outside = h().tree().folder("world-writable", 0777) / "written.txt";
  const fs::path inside = h().scratch() / "written.txt";
  const Outcome o = h().probe({"write", outside.string(), "written.txt"});
  expect_clean_exit(o);
  const auto writes = o.all("write");
  ASSERT_EQ(writes.size(), 2u) << o.dump();
  const bool refused = mode().restricted() && landlock();
  EXPECT_EQ(writes[0], refused ? kEacces : "ok") << o.dump();
  EXPECT_EQ(fs::exists(outside), !refused);
  EXPECT_EQ(writes[1], "ok") << "the scratch folder is writable\n" << o.dump();
  EXPECT_TRUE(fs::exists(inside));
}

TEST_P(Hostile, HiddenFileAndFolder) {
  const fs::path visible = h().tree().folder("visible");
  const fs::path plain = h().tree().file("visible/plain.txt", "plain");
  const fs::path hidden = h().tree().file("visible/hidden.txt", "spmv-hidden-secret", 0644);
  const fs::path hidden_folder = h().tree().folder("visible/hidden-folder");
  const fs::path inside = h().tree().file("visible/hidden-folder/inside.txt", "spmv-hidden-folder-secret", 0644);
  ProbeOptions options;
  options.read_only = {visible.string()};
  options.hide = {hidden, hidden_folder};
  const Outcome o = h().probe({"read", plain.string(), hidden.string(), inside.string()}, options);
  expect_clean_exit(o);
  const auto reads = o.all("read");
  ASSERT_EQ(reads.size(), 3u) << o.dump();
  EXPECT_EQ(reads[0], "ok:plain") << o.dump();
  if (mode().has_mount_namespace()) {
    EXPECT_EQ(reads[1], "ok:") << "/dev/null over the file: empty\n" << o.dump();
    EXPECT_EQ(reads[2].rfind("errno:", 0), 0u) << "an empty tmpfs of mode 000 over the folder\n" << o.dump();
  } else {
    // No mount namespace: hide cannot work; the caller is told so.
    EXPECT_EQ(reads[1], "ok:spmv-hidden-secret") << o.dump();
    EXPECT_EQ(reads[2], "ok:spmv-hidden-folder-secret") << o.dump();
    EXPECT_NE(o.reported("note").find("hide: no mount namespace"), std::string::npos) << o.dump();
  }
}

// A TCP listener of the grader on 127.0.0.1.
Outcome connect_to_listener(Harness& harness, const ProbeOptions& options) {
  return harness.run([&](Grader& run) {
    const int listener = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    if (bind(listener, reinterpret_cast<sockaddr*>(&address), size) != 0 || listen(listener, 4) != 0 ||
        getsockname(listener, reinterpret_cast<sockaddr*>(&address), &size) != 0) {
      throw std::runtime_error("listener");
    }
    run.run_probe({"connect", std::to_string(ntohs(address.sin_port))}, options);
    const int accepted = accept(listener, nullptr, nullptr);
    run.report("accepted", accepted >= 0 ? "1" : "0");
  });
}

TEST_P(Hostile, TcpToTheGradersListener) {
  const Outcome o = connect_to_listener(h(), {});
  expect_clean_exit(o);
  EXPECT_EQ(o.reported("accepted"), mode().restricted() ? "0" : "1") << o.dump();
  // seccomp refuses the socket itself.
  EXPECT_EQ(o["connect"], mode().restricted() ? "socket:" + kEperm : "ok") << o.dump();
}

// Without the socket filter: Landlock (ABI 4) refuses the connect; with
// nothing the program applies itself, the network namespace still does.
TEST_P(Hostile, TcpWithoutTheSocketFilter) {
  ProbeOptions options;
  options.probe_flags = {"--allow-network"};
  Outcome o = connect_to_listener(h(), options);
  expect_clean_exit(o);
  if (mode().restricted() && landlock_tcp()) {
    EXPECT_EQ(o["connect"], "connect:" + kEacces) << o.dump();
    EXPECT_EQ(o.reported("accepted"), "0") << o.dump();
  } else {
    EXPECT_EQ(o.reported("accepted"), mode().has_pid_namespace() ? "0" : "1") << o.dump();
  }

  options.restrict_level = Level::kNone;
  o = connect_to_listener(h(), options);
  expect_clean_exit(o);
  EXPECT_EQ(o.reported("accepted"), mode().has_pid_namespace() ? "0" : "1") << o.dump();
  if (mode().has_pid_namespace()) {
    EXPECT_EQ(o["connect"], "connect:" + errno_text("ENETUNREACH", ENETUNREACH)) << "loopback is down\n" << o.dump();
  }
}

// A path-named UNIX socket of the grader, its file writable by anyone:
// Landlock (up to ABI 7) does not govern connect() on it and a network
// namespace does not separate it, so only forbid_unix_sockets refuses it.
TEST_P(Hostile, UnixSocketOfTheGrader) {
  const fs::path folder = h().tree().folder("sockets", 0777);
  const auto attempt = [&](const std::vector<std::string>& flags) {
    return h().run([&](Grader& run) {
      const fs::path path = folder / ("grader-" + std::to_string(getpid()) + ".sock");
      const int listener = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
      sockaddr_un address{};
      address.sun_family = AF_UNIX;
      std::snprintf(address.sun_path, sizeof address.sun_path, "%s", path.c_str());
      if (bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || listen(listener, 4) != 0 ||
          chmod(path.c_str(), 0777) != 0) {
        throw std::runtime_error("unix listener");
      }
      ProbeOptions options;
      options.probe_flags = flags;
      run.run_probe({"connect-unix", path.string()}, options);
      const int accepted = accept(listener, nullptr, nullptr);
      run.report("accepted", accepted >= 0 ? "1" : "0");
    });
  };
  Outcome o = attempt({});
  expect_clean_exit(o);
  EXPECT_EQ(o["connect-unix"], "ok") << "not refused by default, at any level\n" << o.dump();
  EXPECT_EQ(o.reported("accepted"), "1") << o.dump();

  o = attempt({"--no-unix-sockets"});
  expect_clean_exit(o);
  EXPECT_EQ(o["connect-unix"], mode().restricted() ? "socket:" + kEperm : "ok") << o.dump();
  EXPECT_EQ(o.reported("accepted"), mode().restricted() ? "0" : "1") << o.dump();
}

TEST_P(Hostile, ForkBombStopsAtTheProcessLimit) {
  ProbeOptions options;
  options.limits.processes = 20;
  const Outcome o = h().probe({"fork-bomb", "300"}, options, 10000);
  expect_clean_exit(o);
  const int forks = std::stoi(o["forks"].empty() ? "-1" : o["forks"]);
  if (!mode().restricted() && geteuid() == 0) {
    // RLIMIT_NPROC does not hold root back: at none, nothing stops it.
    EXPECT_EQ(forks, 300) << o.dump();
    return;
  }
  EXPECT_GE(forks, 1) << o.dump();
  EXPECT_LT(forks, 20) << o.dump();
  EXPECT_EQ(o["fork.errno"], "EAGAIN(11)") << o.dump();
}

// kill_all() kills by uid with a helper of that uid, which the sandbox can
// signal: a program that stops every process of its uid in a loop must
// still be dead, children included, after kill_all().
TEST_P(Hostile, KillAllDespiteSigstopOfEveryProcessOfTheUid) {
  if (!mode().has_distinct_uid()) {
    GTEST_SKIP() << "kill(-1, SIGSTOP) as the grader's uid (root at none) would stop the test's own processes";
  }
  // Also with nothing applied by the program: no Landlock scope to keep it
  // from signalling the helper.
  for (const Level restriction : {mode().level, Level::kNone}) {
    const Outcome o = h().run([&](Grader& run) {
      ProbeOptions options;
      options.restrict_level = restriction;
      Process process = spawn(run.probe_spec({"stop-my-uid"}, options));
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      const auto start = std::chrono::steady_clock::now();
      const auto status = process.kill_all();
      const auto took = std::chrono::steady_clock::now() - start;
      run.report("kill_all_ms", std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(took).count()));
      run.report_status(status);
      run.report_leftovers();
    });
    EXPECT_EQ(o["stop-my-uid"], "looping") << o.dump();
    EXPECT_EQ(o.reported("status.signal"), std::to_string(SIGKILL)) << o.dump();
    EXPECT_EQ(o.reported("leftover"), "") << o.dump();
    EXPECT_LT(std::stoi(o.reported("kill_all_ms").empty() ? "99999" : o.reported("kill_all_ms")), 3000) << o.dump();
  }
}

// A setsid, double-forked daemon that writes a file 600 ms later: dead after
// kill_all() wherever the sandbox has a PID namespace or a uid of its own.
TEST_P(Hostile, SetsidDaemonDiesWithKillAll) {
  const fs::path witness = h().scratch() / "daemon-wrote";
  const Outcome o = h().run([&](Grader& run) {
    run.run_probe({"daemon", witness.string(), "600"});
    std::this_thread::sleep_for(std::chrono::milliseconds(1000));
    run.report("witness", fs::exists(witness) ? "1" : "0");
  });
  EXPECT_EQ(o.reported("done"), "1") << o.dump();
  EXPECT_EQ(o.reported("status"), "exit 0") << o.dump();
  EXPECT_EQ(o["daemon"], "started") << o.dump();
  const bool contained = mode().has_pid_namespace() || mode().has_distinct_uid();
  if (contained) {
    EXPECT_EQ(o.reported("leftover"), "") << o.dump();
    EXPECT_EQ(o.reported("witness"), "0") << o.dump();
  } else {
    // none, user without namespaces: the daemon left the process group and
    // was orphaned; nothing of the sandbox reaches it.
    EXPECT_EQ(o.reported("witness"), "1") << o.dump();
  }
}

TEST_P(Hostile, CrashSignalsAreReportedAsSuch) {
  for (const auto& [command, signal] : {std::pair{"segv", SIGSEGV}, std::pair{"abort", SIGABRT}}) {
    const Outcome o = h().probe({command});
    EXPECT_EQ(o.reported("status.signaled"), "1") << command << "\n" << o.dump();
    EXPECT_EQ(o.reported("status.signal"), std::to_string(signal)) << command << "\n" << o.dump();
    EXPECT_EQ(o.reported("leftover"), "") << o.dump();
  }
}

TEST_P(Hostile, ExitCodePassesThrough) {
  const Outcome o = h().probe({"exit", "3"});
  EXPECT_EQ(o.reported("status"), "exit 3") << o.dump();
}

// stop() freezes every process it can reach; resume() lets them go on.
TEST_P(Hostile, StopFreezesTheSandbox) {
  const Outcome o = h().run([](Grader& run) {
    Process process = spawn(run.probe_spec({"tick"}));
    const auto count = [&](const char* name) {
      std::ifstream in(run.scratch() / (std::string("tick-") + name));
      long value = -1;
      in >> value;
      return value;
    };
    const char* names[] = {"main", "child", "daemon"};
    for (int waited = 0; waited < 200; ++waited) {
      if (count("main") > 2 && count("child") > 2 && count("daemon") > 2) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    process.stop();
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    long stopped[3];
    for (int i = 0; i < 3; ++i) stopped[i] = count(names[i]);
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    for (int i = 0; i < 3; ++i)
      run.report(std::string("frozen.") + names[i], count(names[i]) == stopped[i] ? "1" : "0");
    process.resume();
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    for (int i = 0; i < 3; ++i)
      run.report(std::string("resumed.") + names[i], count(names[i]) > stopped[i] ? "1" : "0");
    run.report("running_after_resume", process.poll() ? "0" : "1");
    process.kill_all();
    run.report_leftovers();
  });
  EXPECT_EQ(o.reported("done"), "1") << o.dump();
  EXPECT_EQ(o.reported("frozen.main"), "1") << o.dump();
  EXPECT_EQ(o.reported("frozen.child"), "1") << o.dump();
  EXPECT_EQ(o.reported("resumed.main"), "1") << o.dump();
  EXPECT_EQ(o.reported("resumed.child"), "1") << o.dump();
  EXPECT_EQ(o.reported("running_after_resume"), "1") << o.dump();
  const bool reaches_daemons = mode().has_pid_namespace() || mode().has_distinct_uid();
  // Without a namespace or a uid, an orphaned setsid process is out of reach.
  EXPECT_EQ(o.reported("frozen.daemon"), reaches_daemons ? "1" : "0") << o.dump();
  if (reaches_daemons) {
    EXPECT_EQ(o.reported("resumed.daemon"), "1") << o.dump();
    EXPECT_EQ(o.reported("leftover"), "") << o.dump();
  }
}

// A thread that existed before restrict_self (as the CUDA driver's do) is
// restricted too.
TEST_P(Hostile, LandlockReachesEarlierThreads) {
  const fs::path secret = h().tree().file("outside/thread-secret.txt", "spmv-thread-secret", 0644);
  ProbeOptions options;
  options.probe_flags = {"--thread"};
  const Outcome o = h().probe({"thread-read", secret.string()}, options);
  expect_clean_exit(o);
  const bool refused = mode().restricted() && landlock();
  EXPECT_EQ(o["thread-read"], refused ? kEacces : "ok:spmv-thread-secret") << o.dump();
  EXPECT_EQ(o["main-read"], refused ? kEacces : "ok:spmv-thread-secret") << o.dump();
  if (refused) {
    EXPECT_NE(o["restrict"].find("threads 2/2"), std::string::npos) << o.dump();
  }
}

// What Landlock cannot do before its ABI 8: a thread that blocks every
// signal is out of restrict_self's reach (it says so) until it unblocks
// them. seccomp covers every thread regardless.
TEST_P(Hostile, ThreadBlockingSignalsIsRestrictedOnlyOnceItUnblocks) {
  const fs::path secret = h().tree().file("outside/thread-secret.txt", "spmv-thread-secret", 0644);
  ProbeOptions options;
  options.probe_flags = {"--thread-blocking-signals"};
  const Outcome o = h().probe({"thread-read", secret.string()}, options);
  expect_clean_exit(o);
  const bool landlocked = mode().restricted() && landlock();
  EXPECT_EQ(o["thread-read"], "ok:spmv-thread-secret") << o.dump();
  EXPECT_EQ(o["thread-read-after-unblock"], landlocked ? kEacces : "ok:spmv-thread-secret") << o.dump();
  EXPECT_EQ(o["main-read"], landlocked ? kEacces : "ok:spmv-thread-secret") << o.dump();
  if (landlocked) {
    EXPECT_NE(o["restrict"].find("threads 1/2, 1 not yet: 1 blocking the signal"), std::string::npos) << o.dump();
  }
}

std::string mode_name(const testing::TestParamInfo<Mode>& parameter) { return parameter.param.name; }

INSTANTIATE_TEST_SUITE_P(Levels, Hostile, testing::ValuesIn(all_modes()), mode_name);

}  // namespace
}  // namespace spmv::sandbox::test
