// Children forked ahead of their turn (PendingChild): start-up at once, the
// body only once started, the time limit from the start, a child never
// started killed and reaped, no child able to reach another's start
// channel or shared region. And the GPU check's cache file.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <new>
#include <random>
#include <string>
#include <thread>

#include "grade_process.hpp"
#include "random_csr.hpp"
#include "runners/probe.hpp"
#include "runners/process.hpp"

namespace spmv::grade {
namespace {

// What a child tells the test, in a region shared with it.
struct Flags {
  std::atomic<int> started_up{0};
  std::atomic<int> ran{0};
  std::atomic<pid_t> grandchild{0};
  std::atomic<int> sockets{-1};
};

class SharedFlags {
 public:
  SharedFlags() : region_(sizeof(Flags)), flags_(new (region_.data()) Flags()) {}
  Flags* operator->() const { return flags_; }

 private:
  SharedRegion region_;
  Flags* flags_;
};

// The state letter of /proc/<pid>/stat ('R', 'S', 'Z', ...), '\0' if gone.
char process_state(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  return close == std::string::npos || close + 2 >= text.size() ? '\0' : text[close + 2];
}

// Waits up to 5 s for `done()`.
template <typename Condition>
bool eventually(Condition done) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!done()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

int open_sockets() {
  int sockets = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code error;
    const auto target = std::filesystem::read_symlink(entry.path(), error);
    if (!error && target.string().rfind("socket:", 0) == 0) ++sockets;
  }
  return sockets;
}

TEST(PendingChild, StartsUpAtOnceAndRunsItsBodyOnlyOnceStarted) {
  const SharedFlags flags;
  PendingChild child([&] { flags->started_up = 1; }, [&] { flags->ran = 1; }, "/dev/null");
  ASSERT_TRUE(eventually([&] { return flags->started_up.load() == 1; })) << "the start-up did not run";
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(flags->ran.load(), 0) << "the body ran before start()";
  child.start();
  const ChildExit exit = child.wait(10);
  EXPECT_EQ(exit.kind, ChildExit::Kind::kExited);
  EXPECT_EQ(exit.code, 0);
  EXPECT_EQ(flags->ran.load(), 1);
}

TEST(PendingChild, TheTimeLimitCountsFromTheStart) {
  // A start-up finished before start() is not charged...
  PendingChild ahead([] { std::this_thread::sleep_for(std::chrono::milliseconds(300)); }, [] {}, "/dev/null");
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  ahead.start();
  ChildExit exit = ahead.wait(0.25);
  EXPECT_EQ(exit.kind, ChildExit::Kind::kExited);
  EXPECT_LT(exit.seconds, 0.25);

  // ...one still going on is.
  PendingChild late([] { ::pause(); }, [] {}, "/dev/null");
  late.start();
  exit = late.wait(0.3);
  EXPECT_EQ(exit.kind, ChildExit::Kind::kTimedOut);
  EXPECT_GE(exit.seconds, 0.3);
  EXPECT_LT(exit.seconds, 5);
}

TEST(PendingChild, OneNeverStartedIsKilledAndReapedWithWhatItStarted) {
  const SharedFlags flags;
  pid_t pid = 0;
  {
    PendingChild child(
        [&] {
          const pid_t grandchild = ::fork();
          if (grandchild == 0) ::pause();
          flags->grandchild = grandchild;
          flags->started_up = 1;
        },
        [&] { flags->ran = 1; }, "/dev/null");
    pid = child.pid();
    ASSERT_TRUE(eventually([&] { return flags->started_up.load() == 1; }));
  }
  EXPECT_EQ(flags->ran.load(), 0) << "a child never started ran its body";
  // Reaped: the pid is no longer this process's child, not even a zombie.
  EXPECT_EQ(::waitpid(pid, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
  EXPECT_EQ(process_state(pid), '\0');
  const pid_t grandchild = flags->grandchild.load();
  ASSERT_GT(grandchild, 0);
  EXPECT_TRUE(eventually([&] {
    const char state = process_state(grandchild);
    return state == '\0' || state == 'Z';  // a zombie has ended; only its new parent has yet to reap it
  })) << "the child's own child outlived it";
}

TEST(PendingChild, ADeathBeforeTheStartIsItsResult) {
  PendingChild child([] { std::raise(SIGSEGV); }, [] {}, "/dev/null");
  ASSERT_TRUE(eventually([&] { return process_state(child.pid()) == 'Z'; }));
  child.start();  // to a dead child: must not raise SIGPIPE here
  const ChildExit exit = child.wait(10);
  EXPECT_EQ(exit.kind, ChildExit::Kind::kSignaled);
  EXPECT_EQ(exit.signal, SIGSEGV);
}

TEST(PendingChild, AChildHoldsNoOtherChildsStartChannel) {
  const int sockets_before = open_sockets();
  const SharedFlags first_flags;
  const SharedFlags second_flags;
  PendingChild first([] {}, [&] { first_flags->ran = 1; }, "/dev/null");
  PendingChild second([&] { second_flags->sockets = open_sockets(); }, [] {}, "/dev/null");
  ASSERT_TRUE(eventually([&] { return second_flags->sockets.load() >= 0; }));
  EXPECT_EQ(second_flags->sockets.load(), sockets_before + 1) << "only its own start channel";
  second.start();
  EXPECT_EQ(second.wait(10).code, 0);
  EXPECT_EQ(first_flags->ran.load(), 0);
  first.start();
  EXPECT_EQ(first.wait(10).code, 0);
  EXPECT_EQ(first_flags->ran.load(), 1);
}

class GpuProbeCacheFile : public ::testing::Test {
 protected:
  [[nodiscard]] std::filesystem::path file() const { return scratch_ / "rows" / "gpu-probe.json"; }
  test::ScratchDir scratch_;
  std::mt19937_64 random_{test::fresh_seed()};
};

TEST_F(GpuProbeCacheFile, ReadsBackWhatWasWrittenAndLeavesNoTemporaryFile) {
  const GpuProbeCache written{"NVIDIA H100 80GB HBM3 GPU-0123456789abcdef 0000:1b:00",
                              std::uniform_real_distribution<double>(100, 5000)(random_)};
  write_gpu_probe_cache(file(), written);
  const auto read = read_gpu_probe_cache(file());
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->gpu_key, written.gpu_key);
  EXPECT_EQ(read->copy_gbps, written.copy_gbps) << "exactly: a reused figure must be the measured one";
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(file().parent_path())) {
    ++files;
    EXPECT_EQ(entry.path(), file());
  }
  EXPECT_EQ(files, 1);

  const GpuProbeCache replaced{"another GPU", written.copy_gbps / 2};
  write_gpu_probe_cache(file(), replaced);
  EXPECT_EQ(read_gpu_probe_cache(file())->gpu_key, "another GPU");
}

TEST_F(GpuProbeCacheFile, MissingCorruptOrIncompleteFilesAreIgnored) {
  EXPECT_FALSE(read_gpu_probe_cache(file()).has_value()) << "missing";
  std::string noise(64, '\0');
  for (char& c : noise) c = static_cast<char>(random_());
  for (const std::string& text :
       {std::string(), std::string("{"), std::string("not json"), std::string("[1, 2]"), noise,
        std::string(R"({"gpu": 3, "copy_gbps": 1000})"), std::string(R"({"gpu": "x"})"),
        std::string(R"({"copy_gbps": 1000})"), std::string(R"({"gpu": "x", "copy_gbps": -1})"),
        std::string(R"({"gpu": "x", "copy_gbps": 0})"), std::string(R"({"gpu": "", "copy_gbps": 1000})"),
        std::string(R"({"gpu": "x", "copy_gbps": "fast"})"), std::string(R"({"gpu": "x", "copy_gbps": 1000)")}) {
    test::write_text(file(), text);
    EXPECT_FALSE(read_gpu_probe_cache(file()).has_value()) << "accepted: " << text;
  }
}

}  // namespace
}  // namespace spmv::grade
