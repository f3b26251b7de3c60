// spmv::sandbox's API without hostile programs: level names and
// availability, uid leases, killing by uid, spawn's refusals and error
// messages, Process ownership.
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>

#include <gtest/gtest.h>

#include "child.hpp"
#include "fresh_seed.hpp"
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

// The levels that change the program's uid need one leased for it: leased
// into `lease` and set in `spec`.
void lease_uid_if_needed(Spec& spec, std::optional<UidLease>& lease) {
  if (spec.level != Level::kContainer && spec.level != Level::kFull) return;
  lease = UidLease::acquire();
  spec.uid = lease->uid();
}

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
    lease_uid_if_needed(spec, lease);
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
  lease_uid_if_needed(spec, lease);
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
  lease_uid_if_needed(spec, lease);
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
  lease_uid_if_needed(spec, lease);
  constexpr std::size_t kBytes = std::size_t{256} << 20;
  std::vector<char> held(kBytes);
  const std::uint64_t seed = ::spmv::test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937 random{static_cast<std::uint32_t>(seed)};
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

// What init lets go of, line by line of /proc/self/maps, at random places.
TEST(SandboxInit, LetsGoOfLargeAnonymousMappingsButWhatItRunsOn) {
  using Ranges = std::vector<std::pair<unsigned long, unsigned long>>;
  const auto let_go = [](unsigned long start, unsigned long end, const std::string& rest,
                         const detail::KeptMemory& kept) {
    char text[160];
    std::snprintf(text, sizeof text, "%lx-%lx %s", start, end, rest.c_str());
    detail::MemoryRange out[2];
    const int count = detail::ranges_to_let_go(text, text + std::strlen(text), kept, out);
    Ranges ranges;
    for (int k = 0; k < count; ++k) ranges.emplace_back(out[k].start, out[k].end);
    return ranges;
  };
  const std::string anonymous = "rw-p 00000000 00:00 0";
  const std::uint64_t seed = ::spmv::test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 random{seed};
  for (int trial = 0; trial < 200; ++trial) {
    const unsigned long page = 4096;
    const unsigned long start = (0x7f0000000000UL + random() % (1UL << 36)) & ~(page - 1);
    const unsigned long size = ((std::uint64_t{2} << 20) + random() % (std::uint64_t{1} << 30)) & ~(page - 1);
    const unsigned long end = start + size;
    const detail::KeptMemory elsewhere{end + (1UL << 30), end + (2UL << 30)};
    // A large anonymous mapping, the heap: let go whole.
    EXPECT_EQ(let_go(start, end, anonymous, elsewhere), Ranges({{start, end}}));
    EXPECT_EQ(let_go(start, end, anonymous + "                 [heap]", elsewhere), Ranges({{start, end}}));
    // Small, a file's, named otherwise, or malformed: kept.
    EXPECT_TRUE(let_go(start, start + (1UL << 20) - page, anonymous, elsewhere).empty());
    EXPECT_TRUE(let_go(start, end, "rw-p 00003000 fe:00 5309135        /usr/lib/libc.so.6", elsewhere).empty());
    EXPECT_TRUE(let_go(start, end, anonymous + "                 [stack]", elsewhere).empty());
    EXPECT_TRUE(let_go(end, start, anonymous, elsewhere).empty());
    // Holding init's stack: kept whole.
    EXPECT_TRUE(let_go(start, end, anonymous, {start + random() % size, elsewhere.thread_block}).empty());
    // Holding the thread's block: all but a window around it, in pages.
    const unsigned long pointer = start + random() % size;
    const Ranges parts = let_go(start, end, anonymous, {elsewhere.stack, pointer});
    ASSERT_LE(parts.size(), 2U);
    unsigned long released = 0;
    for (const auto& [from, to] : parts) {
      EXPECT_EQ(from % page, 0U);
      EXPECT_EQ(to % page, 0U);
      EXPECT_LE(start, from);
      EXPECT_LT(from, to);
      EXPECT_LE(to, end);
      // The thread's TLS below the pointer and its descriptor above stay.
      EXPECT_TRUE(to <= pointer - (64UL << 10) || from >= pointer + (8UL << 10))
          << std::hex << from << "-" << to << " around " << pointer;
      released += to - from;
    }
    EXPECT_GE(released + (1UL << 20) + (72UL << 10), size) << "more than the window kept";
  }
}

// spawn() from a thread whose block (the stack guard, errno, the loader's
// flags) lies in a large anonymous mapping that holds no stack init runs
// on, as where the kernel merges the caller's memory with the mapping of
// the main thread's block: the thread's stack and block are 64 MB of the
// caller's memory, and spawn() runs on another, small stack. Init keeps a
// window around the thread's block when it lets go of the rest, and still
// reports the program's end.
struct SpawnOnAnotherStack {
  Spec spec;
  void* small_stack = nullptr;
  std::size_t small_stack_size = 0;
  std::uintptr_t thread_block = 0;
  std::optional<ExitStatus> killed;
  std::optional<ExitStatus> exited;
  std::string error;
  ucontext_t thread_context{};
  ucontext_t spawn_context{};
};
SpawnOnAnotherStack* g_spawn_job = nullptr;

void spawn_on_the_small_stack() {
  SpawnOnAnotherStack& job = *g_spawn_job;
  try {
    Process process = spawn(job.spec);
    if (process.wait(100).has_value()) job.error = "init or the program ended early";
    job.killed = process.kill_all();
    job.spec.argv = {SPMV_SANDBOX_PROBE, "--", "exit", "7"};
    Process quick = spawn(job.spec);
    job.exited = quick.wait(10000);
  } catch (const std::exception& error) {
    job.error = error.what();
  }
}

void* thread_in_the_callers_memory(void*) {
  SpawnOnAnotherStack& job = *g_spawn_job;
  job.thread_block = reinterpret_cast<std::uintptr_t>(__builtin_thread_pointer());
  getcontext(&job.spawn_context);
  job.spawn_context.uc_stack.ss_sp = job.small_stack;
  job.spawn_context.uc_stack.ss_size = job.small_stack_size;
  job.spawn_context.uc_link = &job.thread_context;
  makecontext(&job.spawn_context, spawn_on_the_small_stack, 0);
  swapcontext(&job.thread_context, &job.spawn_context);
  return nullptr;
}

TEST(SandboxProcess, InitKeepsTheThreadsBlockInALargeMapping) {
  TempTree tree;
  const fs::path scratch = tree.folder("scratch", 0777);
  const Level level = strongest_available();
  if (level != Level::kFull && level != Level::kUser) GTEST_SKIP() << "no PID namespace at " << level_name(level);
  std::optional<UidLease> lease;
  SpawnOnAnotherStack job;
  job.spec = probe_spec(scratch, level);
  lease_uid_if_needed(job.spec, lease);
  constexpr std::size_t kThreadMemory = std::size_t{64} << 20;
  job.small_stack_size = std::size_t{512} << 10;
  // Each between inaccessible pages, which the kernel never merges with
  // their neighbours.
  const auto fenced = [](std::size_t bytes) -> void* {
    void* whole = mmap(nullptr, bytes + 2 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (whole == MAP_FAILED) return MAP_FAILED;
    void* inside = static_cast<char*>(whole) + 4096;
    return mprotect(inside, bytes, PROT_READ | PROT_WRITE) == 0 ? inside : MAP_FAILED;
  };
  void* thread_memory = fenced(kThreadMemory);
  job.small_stack = fenced(job.small_stack_size);
  ASSERT_NE(thread_memory, MAP_FAILED);
  ASSERT_NE(job.small_stack, MAP_FAILED);
  std::memset(thread_memory, 0x5a, kThreadMemory / 2);  // the caller's data below the thread's stack
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstack(&attributes, thread_memory, kThreadMemory);
  g_spawn_job = &job;
  pthread_t thread;
  ASSERT_EQ(pthread_create(&thread, &attributes, thread_in_the_callers_memory, nullptr), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attributes);
  g_spawn_job = nullptr;
  const auto memory = reinterpret_cast<std::uintptr_t>(thread_memory);
  EXPECT_TRUE(memory <= job.thread_block && job.thread_block < memory + kThreadMemory)
      << "the thread's block is not in the caller's memory: the test shows nothing";
  EXPECT_EQ(job.error, "");
  ASSERT_TRUE(job.killed.has_value());
  EXPECT_TRUE(job.killed->signaled);
  EXPECT_EQ(job.killed->signal, SIGKILL) << "not the program's end: init crashed";
  ASSERT_TRUE(job.exited.has_value()) << "init never reported the program's exit";
  EXPECT_FALSE(job.exited->signaled) << "signal " << job.exited->signal;
  EXPECT_EQ(job.exited->code, 7);
  munmap(static_cast<char*>(job.small_stack) - 4096, job.small_stack_size + 2 * 4096);
  munmap(static_cast<char*>(thread_memory) - 4096, kThreadMemory + 2 * 4096);
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
