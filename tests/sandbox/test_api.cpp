// spmv::sandbox's API without hostile programs: level names and
// availability, uid leases, killing by uid, spawn's refusals and error
// messages, Process ownership.
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "harness.hpp"

namespace spmv::sandbox::test {
namespace {

constexpr Level kLevels[] = {Level::kNone, Level::kUser, Level::kContainer, Level::kFull};

// The message of the SandboxError `action` throws ("" when none).
template <typename Action>
std::string error_of(Action action) {
  try {
    action();
  } catch (const SandboxError& error) {
    return error.what();
  }
  return "";
}

Spec probe_spec(const fs::path& scratch, Level level) {
  Spec spec;
  spec.level = level;
  spec.executable = SPMV_SANDBOX_PROBE;
  spec.argv = {SPMV_SANDBOX_PROBE, "--", "sleep", "10000"};
  spec.scratch = scratch;
  return spec;
}

bool alive(pid_t pid) { return kill(pid, 0) == 0; }

// A child forked by a test ends by itself within 30 s whatever happens to
// the test, and does not hold the test's output (CTest waits for its end).
void bound_test_child() {
  alarm(30);
  const int devnull = open("/dev/null", O_RDWR);
  for (const int fd : {0, 1, 2}) dup2(devnull, fd);
  if (devnull > 2) close(devnull);
}

TEST(SandboxLevels, NamesRoundTrip) {
  for (const Level level : kLevels) EXPECT_EQ(parse_level(level_name(level)), level);
  EXPECT_STREQ(level_name(Level::kContainer), "container");
  EXPECT_FALSE(parse_level("strong").has_value());
  EXPECT_FALSE(parse_level("").has_value());
}

TEST(SandboxLevels, StrongestIsAvailableAndDescribed) {
  const Level strongest = strongest_available();
  EXPECT_EQ(why_unavailable(strongest), "");
  EXPECT_EQ(why_unavailable(Level::kNone), "");
  for (const Level level : kLevels) {
    const std::string description = describe_level(level);
    EXPECT_EQ(description.rfind(std::string(level_name(level)) + ": ", 0), 0u) << description;
    const std::string why = why_unavailable(level);
    std::cout << level_name(level) << (why.empty() ? " (available): " : " (not available: " + why + "): ")
              << description << "\n";
    // Stronger than the strongest: unavailable, with a reason.
    if (static_cast<int>(level) > static_cast<int>(strongest)) {
      EXPECT_NE(why, "") << level_name(level);
    }
  }
  if (geteuid() != 0) {
    EXPECT_NE(why_unavailable(Level::kFull).find("root"), std::string::npos);
  }
}

TEST(SandboxLevels, RestrictSelfAtNoneAppliesNothing) {
  EXPECT_EQ(restrict_self({}, Level::kNone), "none: nothing applied");
}

TEST(SandboxUidLease, DistinctInRangeAndRootOnlyFolder) {
  if (geteuid() != 0) GTEST_SKIP() << "uid leases need root";
  UidLease first = UidLease::acquire();
  UidLease second = UidLease::acquire();
  EXPECT_NE(first.uid(), second.uid());
  for (const UidLease* lease : {&first, &second}) {
    EXPECT_GE(lease->uid(), UidLease::kUidBase);
    EXPECT_LT(lease->uid(), UidLease::kUidBase + UidLease::kUidSlots);
    EXPECT_EQ(lease->gid(), lease->uid());
  }
  struct stat folder {};
  ASSERT_EQ(stat(UidLease::lock_folder().c_str(), &folder), 0);
  EXPECT_EQ(folder.st_uid, 0u);
  EXPECT_EQ(folder.st_mode & 0777, 0700u);
  // A lease moves; the moved-from one no longer holds the slot.
  const uid_t uid = first.uid();
  UidLease moved = std::move(first);
  EXPECT_EQ(moved.uid(), uid);
}

TEST(SandboxUidLease, RefusedWithoutRoot) {
  if (geteuid() != 0) {
    EXPECT_NE(error_of([] { UidLease::acquire(); }).find("needs root"), std::string::npos);
    return;
  }
  const pid_t child = fork();
  if (child == 0) {
    bound_test_child();
    if (setresgid(65534, 65534, 65534) != 0 || setresuid(65534, 65534, 65534) != 0) _exit(2);
    _exit(error_of([] { UidLease::acquire(); }).find("needs root") != std::string::npos ? 0 : 1);
  }
  int status = 0;
  waitpid(child, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

// kill_uid reaches every process of the uid: a setsid, double-forked one too.
TEST(SandboxKillUid, KillsEveryProcessOfTheUid) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root";
  // The daemon comes back to this process, which reaps it.
  prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
  const UidLease lease = UidLease::acquire();
  pid_t daemon_parent = -1;
  for (int i = 0; i < 3; ++i) {
    const pid_t child = fork();
    if (child == 0) {
      bound_test_child();
      if (setresgid(lease.gid(), lease.gid(), lease.gid()) != 0 ||
          setresuid(lease.uid(), lease.uid(), lease.uid()) != 0)
        _exit(2);
      if (i == 2) {
        setsid();
        if (fork() != 0) _exit(0);
      }
      for (;;) pause();
    }
    if (i == 2) daemon_parent = child;
  }
  // Once the daemon's parent is gone the daemon exists: three processes, none passing.
  ASSERT_EQ(waitpid(daemon_parent, nullptr, 0), daemon_parent);
  for (int waited = 0; waited < 200 && processes_of_uid(lease.uid()).size() != 3; ++waited) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  const std::size_t started = processes_of_uid(lease.uid()).size();
  const std::vector<pid_t> left = kill_uid(lease.uid());
  EXPECT_EQ(started, 3u);
  EXPECT_TRUE(left.empty());
  EXPECT_TRUE(processes_of_uid(lease.uid()).empty());
  while (waitpid(-1, nullptr, WNOHANG) > 0) {
  }
  EXPECT_NE(error_of([] { kill_uid(0); }).find("refusing uid 0"), std::string::npos);
}

TEST(SandboxSpawn, RefusesBadSpecs) {
  TempTree tree;
  const fs::path scratch = tree.folder("scratch");
  Spec relative = probe_spec(scratch, Level::kNone);
  relative.executable = "sandbox_probe";
  EXPECT_NE(error_of([&] { spawn(relative); }).find("not an absolute path"), std::string::npos);
  Spec no_argv = probe_spec(scratch, Level::kNone);
  no_argv.argv.clear();
  EXPECT_NE(error_of([&] { spawn(no_argv); }).find("argv is empty"), std::string::npos);
  Spec no_scratch = probe_spec(tree.root() / "missing", Level::kNone);
  EXPECT_NE(error_of([&] { spawn(no_scratch); }).find("scratch folder"), std::string::npos);
  for (const Level level : {Level::kContainer, Level::kFull}) {
    EXPECT_NE(error_of([&] { spawn(probe_spec(scratch, level)); }).find("needs a uid"), std::string::npos);
  }
  Spec bad_fd = probe_spec(scratch, Level::kNone);
  bad_fd.pass_fds = {9999};
  EXPECT_NE(error_of([&] { spawn(bad_fd); }).find("fd to pass 9999"), std::string::npos);
  if (geteuid() == 0) {
    Spec user_with_uid = probe_spec(scratch, Level::kUser);
    user_with_uid.uid = UidLease::kUidBase;
    EXPECT_NE(error_of([&] { spawn(user_with_uid); }).find("keeps the caller's uid"), std::string::npos);
    Spec as_root = probe_spec(scratch, Level::kNone);
    as_root.uid = 0;
    EXPECT_NE(error_of([&] { spawn(as_root); }).find("a uid of its own"), std::string::npos);
  }
}

// A step that fails in the child comes back as the step and the system's
// reason, through init too.
TEST(SandboxSpawn, NamesTheFailingStep) {
  TempTree tree;
  const fs::path scratch = tree.folder("scratch");
  for (const Level level : kLevels) {
    if (!why_unavailable(level).empty()) continue;
    std::optional<UidLease> lease;
    Spec spec = probe_spec(scratch, level);
    spec.executable = "/nonexistent-spmv/probe";
    if (level == Level::kContainer || level == Level::kFull) {
      lease = UidLease::acquire();
      spec.uid = lease->uid();
    }
    const std::string error = error_of([&] { spawn(spec); });
    EXPECT_NE(error.find("execve /nonexistent-spmv/probe: No such file or directory"), std::string::npos)
        << level_name(level) << ": " << error;
    EXPECT_NE(error.find(std::string("level ") + level_name(level)), std::string::npos) << error;
  }
}

// Destroying a Process kills it; moving one hands the duty over.
TEST(SandboxProcess, MovesAndKillsOnDestruction) {
  TempTree tree;
  const fs::path scratch = tree.folder("scratch", 0777);
  const Level level = strongest_available();
  std::optional<UidLease> lease;
  Spec spec = probe_spec(scratch, level);
  if (level == Level::kContainer || level == Level::kFull) {
    lease = UidLease::acquire();
    spec.uid = lease->uid();
  }
  pid_t pid = -1;
  {
    Process outer;
    {
      Process inner = spawn(spec);
      pid = inner.pid();
      ASSERT_GT(pid, 0);
      outer = std::move(inner);
      EXPECT_EQ(inner.pid(), -1);
    }
    EXPECT_TRUE(alive(pid)) << "the moved-from Process must not kill it";
    EXPECT_FALSE(outer.poll().has_value());
    EXPECT_EQ(outer.pid(), pid);
  }
  EXPECT_FALSE(alive(pid)) << "destroyed: killed and reaped";
  if (lease) {
    EXPECT_TRUE(processes_of_uid(lease->uid()).empty());
  }
}

// wait() times out on a running program, then kill_all() reports SIGKILL.
TEST(SandboxProcess, WaitTimesOutAndKillAllReportsSigkill) {
  TempTree tree;
  const fs::path scratch = tree.folder("scratch", 0777);
  const Level level = strongest_available();
  std::optional<UidLease> lease;
  Spec spec = probe_spec(scratch, level);
  if (level == Level::kContainer || level == Level::kFull) {
    lease = UidLease::acquire();
    spec.uid = lease->uid();
  }
  Process process = spawn(spec);
  EXPECT_FALSE(process.wait(50).has_value());
  const auto status = process.kill_all();
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(status->signaled);
  EXPECT_EQ(status->signal, SIGKILL);
  EXPECT_EQ(process.poll()->signal, SIGKILL) << "the status stays known";
}

// The resident anonymous memory of process `pid` in kB (/proc/PID/status),
// -1 if unknown.
long resident_anonymous_kb(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("RssAnon:", 0) == 0) return std::stol(line.substr(8));
  }
  return -1;
}

// A sandbox's init starts as a copy of the caller (the grader, gigabytes of
// matrices): once the program runs, it holds none of the caller's large
// memory, which would otherwise stay shared (every page the caller writes
// copied) and be torn down inside kill_all().
TEST(SandboxProcess, InitLetsGoOfTheCallersMemory) {
  TempTree tree;
  const fs::path scratch = tree.folder("scratch", 0777);
  const Level level = strongest_available();
  if (level != Level::kFull && level != Level::kUser) GTEST_SKIP() << "no PID namespace at " << level_name(level);
  std::optional<UidLease> lease;
  Spec spec = probe_spec(scratch, level);
  if (level == Level::kFull) {
    lease = UidLease::acquire();
    spec.uid = lease->uid();
  }
  constexpr std::size_t kBytes = std::size_t{256} << 20;
  std::vector<char> held(kBytes);
  std::mt19937 random(std::random_device{}());
  for (std::size_t i = 0; i < kBytes; i += 4096) held[i] = static_cast<char>(random());
  const auto digest = [&] {
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < kBytes; i += 4096) sum = sum * 1099511628211ULL + static_cast<unsigned char>(held[i]);
    return sum;
  };
  const std::uint64_t before = digest();
  Process process = spawn(spec);
  if (!process.has_pid_namespace()) GTEST_SKIP() << "no PID namespace here";
  ASSERT_GT(resident_anonymous_kb(::getpid()), 200 * 1024);
  // Init lets go once the program is exec'd: within a moment of spawn().
  long init_kb = -1;
  for (int k = 0; k < 200; ++k) {
    init_kb = resident_anonymous_kb(process.pid());
    if (init_kb >= 0 && init_kb < 16 * 1024) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_GE(init_kb, 0);
  EXPECT_LT(init_kb, 16 * 1024) << "init still holds the caller's memory";
  EXPECT_FALSE(process.poll().has_value()) << "the program runs on";
  const auto status = process.kill_all();
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->signal, SIGKILL);
  // The caller's memory is its own, untouched by init's letting go.
  EXPECT_EQ(digest(), before);
}

// spawn() from several threads at once while another thread allocates: the
// cloned child takes no lock (malloc's included) between clone and execve.
TEST(SandboxProcess, SpawnsFromThreadsWhileOthersAllocate) {
  TempTree tree;
  const Level level = strongest_available();
  std::atomic<bool> stop{false};
  std::thread allocator([&] {
    while (!stop.load()) {
      std::vector<std::unique_ptr<char[]>> blocks;
      for (int i = 0; i < 64; ++i) blocks.emplace_back(new char[64 + i * 32]);
    }
  });
  std::atomic<int> clean_exits{0};
  std::vector<std::string> errors(4);
  std::vector<std::thread> spawners;
  for (int t = 0; t < 4; ++t) {
    spawners.emplace_back([&, t] {
      try {
        const fs::path scratch = tree.folder("scratch-" + std::to_string(t), 0777);
        for (int i = 0; i < 5; ++i) {
          std::optional<UidLease> lease;
          Spec spec = probe_spec(scratch, level);
          spec.argv = {SPMV_SANDBOX_PROBE, "--", "exit", "0"};
          if (level == Level::kContainer || level == Level::kFull) {
            lease = UidLease::acquire();
            spec.uid = lease->uid();
          }
          Process process = spawn(spec);
          const auto status = process.wait(10000);
          if (status && !status->signaled && status->code == 0) ++clean_exits;
        }
      } catch (const std::exception& error) {
        errors[t] = error.what();
      }
    });
  }
  for (auto& spawner : spawners) spawner.join();
  stop = true;
  allocator.join();
  for (const auto& error : errors) EXPECT_EQ(error, "");
  EXPECT_EQ(clean_exits.load(), 20);
}

}  // namespace
}  // namespace spmv::sandbox::test
