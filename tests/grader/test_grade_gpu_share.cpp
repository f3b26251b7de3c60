// Gradings sharing one GPU (runners/gpu_share.hpp): a member is alone only
// once no other member is active or alone, is active only while no other
// member is alone or waiting to be, a member waiting is not starved, no two
// members waiting while active deadlock, and a member that dies is
// forgotten. Members are GpuShare objects, in this process (threads) or in
// forked children; each is a slot of the share's file.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <random>
#include <thread>
#include <vector>

#include "fresh_seed.hpp"
#include "model/exit_codes.hpp"
#include "runners/gpu_share.hpp"

namespace spmv::grade {
namespace {

using namespace std::chrono_literals;

class GpuShareTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "spmv-gpu-share-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  std::filesystem::path file() const { return dir_ / "gpu.share"; }
  std::filesystem::path dir_;
};

// `blocker`'s hold keeps `want` (run on a thread) from being granted until
// it is released, and no longer.
template <typename Want>
void expect_held_back(GpuShare::Hold blocker, Want want, const char* what) {
  std::atomic<bool> blocking{true};
  auto granted = std::async(std::launch::async, [&] {
    const GpuShare::Hold hold = want();
    return blocking.load();
  });
  EXPECT_EQ(granted.wait_for(150ms), std::future_status::timeout) << what << ": granted while held back";
  blocking = false;
  blocker.release();
  ASSERT_EQ(granted.wait_for(5s), std::future_status::ready) << what << ": never granted";
  EXPECT_FALSE(granted.get()) << what;
}

TEST_F(GpuShareTest, AloneWaitsForAnotherMembersActivity) {
  GpuShare a(file()), b(file());
  expect_held_back(
      b.active(), [&] { return a.alone(); }, "alone beside another's activity");
}

TEST_F(GpuShareTest, AloneWaitsForAnotherMemberAlone) {
  GpuShare a(file()), b(file());
  expect_held_back(
      b.alone(), [&] { return a.alone(); }, "alone beside another alone");
}

TEST_F(GpuShareTest, ActivityWaitsWhileAnotherMemberIsAlone) {
  GpuShare a(file()), b(file());
  expect_held_back(
      b.alone(), [&] { return a.active(); }, "active beside another alone");
}

TEST_F(GpuShareTest, ActivitiesOfSeveralMembersOverlap) {
  GpuShare a(file()), b(file()), c(file());
  const auto ha = a.active(10ms);
  const auto hb = b.active(10ms);
  const auto hc = c.active(10ms);
  EXPECT_TRUE(ha.held() && hb.held() && hc.held());
}

TEST_F(GpuShareTest, AMemberAloneMayStartItsOwnWork) {
  GpuShare a(file()), b(file());
  const auto alone = a.alone(10ms);
  // A runner of its own starting or ending while it times: granted at once.
  const auto own = a.active(10ms);
  EXPECT_TRUE(own.held());
  // Another member's activity still waits.
  EXPECT_THROW(b.active(100ms), SetupError);
}

TEST_F(GpuShareTest, AMemberWaitingToBeAloneHoldsBackTheOthersNewWork) {
  GpuShare a(file()), b(file());
  GpuShare::Hold busy = b.active();
  std::atomic<bool> b_busy{true};
  auto waiting = std::async(std::launch::async, [&] {
    const auto alone = a.alone();
    return b_busy.load();
  });
  std::this_thread::sleep_for(50ms);
  // b's next work waits for a's turn: a is not starved by b's work.
  auto more = std::async(std::launch::async, [&] {
    const auto next = b.active();
    return 0;
  });
  EXPECT_EQ(more.wait_for(100ms), std::future_status::timeout) << "new work began while another waited";
  b_busy = false;
  busy.release();
  EXPECT_FALSE(waiting.get()) << "a was alone while b's work was under way";
  ASSERT_EQ(more.wait_for(5s), std::future_status::ready);
}

// A member whose work is under way (a row's runner loaded) and which then
// waits to be alone goes before an earlier waiter that is idle: the idle
// one waits for that work, which ends only after its stretch.
TEST_F(GpuShareTest, AnActiveMemberWaitingGoesBeforeAnIdleEarlierOne) {
  GpuShare a(file()), b(file());
  GpuShare::Hold loaded = b.active();
  std::atomic<bool> b_done{false};
  auto idle_waiter = std::async(std::launch::async, [&] {
    const auto stretch = a.alone(5s);
    return b_done.load();
  });
  std::this_thread::sleep_for(50ms);
  {
    const auto stretch = b.alone(2s);
    EXPECT_TRUE(stretch.held());
    EXPECT_EQ(idle_waiter.wait_for(20ms), std::future_status::timeout) << "a was alone during b's stretch";
  }
  b_done = true;
  loaded.release();
  EXPECT_TRUE(idle_waiter.get()) << "a was alone before b's work ended";
}

TEST_F(GpuShareTest, ManyMembersNeverOverlapAStretchWithOtherWork) {
  constexpr int kMembers = 4;
  std::vector<std::unique_ptr<GpuShare>> members;
  for (int k = 0; k < kMembers; ++k) members.push_back(std::make_unique<GpuShare>(file()));
  std::atomic<int> active{0}, alone{0}, violations{0};
  std::vector<std::future<void>> threads;
  for (int k = 0; k < kMembers; ++k) {
    threads.push_back(std::async(std::launch::async, [&, k] {
      const std::uint64_t seed = ::spmv::test::fresh_seed();
      SPMV_TRACE_SEED(seed);
      std::mt19937 random{static_cast<std::uint32_t>(seed)};
      GpuShare& me = *members[static_cast<std::size_t>(k)];
      for (int row = 0; row < 30; ++row) {
        // A row: untimed work, then a stretch alone with its runner alive.
        {
          const auto work = me.active();
          ++active;
          if (alone.load() > 0) ++violations;
          std::this_thread::sleep_for(std::chrono::microseconds(random() % 2000));
          --active;
        }
        if (random() % 2 == 0) {
          const auto stretch = me.alone();
          if (++alone > 1 || active.load() > 0) ++violations;
          std::this_thread::sleep_for(std::chrono::microseconds(random() % 2000));
          --alone;
        }
      }
    }));
  }
  for (auto& thread : threads) ASSERT_EQ(thread.wait_for(60s), std::future_status::ready) << "a member never got on";
  EXPECT_EQ(violations.load(), 0);
}

TEST_F(GpuShareTest, AMemberThatDiesIsForgotten) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    GpuShare member(file());
    const auto stretch = member.alone(1s);
    const char byte = 1;
    (void)!::write(ready[1], &byte, 1);
    ::pause();
    ::_exit(0);
  }
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  GpuShare parent(file());
  EXPECT_THROW(parent.active(100ms), SetupError) << "granted beside a live member alone";
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  EXPECT_TRUE(parent.alone(2s).held());
  ::close(ready[0]);
  ::close(ready[1]);
}

TEST_F(GpuShareTest, TryActiveNeverWaits) {
  GpuShare a(file()), b(file());
  EXPECT_TRUE(a.try_active().held()) << "refused with no one else on the GPU";
  GpuShare::Hold stretch = b.alone();
  const auto before = std::chrono::steady_clock::now();
  EXPECT_FALSE(a.try_active().held()) << "granted while another member is alone";
  EXPECT_LT(std::chrono::steady_clock::now() - before, 1s);
  stretch.release();
  EXPECT_TRUE(a.try_active().held());
}

TEST_F(GpuShareTest, ARunnersStartWaitsForItsOwnMembersStretchToo) {
  GpuShare a(file()), b(file());
  GpuShare::Hold stretch = a.alone();
  EXPECT_TRUE(a.try_active().held()) << "a runner of its own ending in its stretch";
  EXPECT_FALSE(a.try_active(true).held()) << "a start began in its own stretch";
  stretch.release();
  EXPECT_TRUE(a.try_active(true).held());
  GpuShare::Hold other = b.alone();
  EXPECT_FALSE(a.try_active(true).held()) << "a start began in another's stretch";
}

// A member holding work (a runner kept for its next row) may wait for a
// runner's start of its own: the start is granted beside that work while
// another member only waits to be alone (which that work holds up anyway),
// so the two never wait for each other. Its other new work still waits.
TEST_F(GpuShareTest, AStartBesideAMembersOwnWorkIsGrantedWhileAnotherOnlyWaits) {
  GpuShare a(file()), b(file());
  GpuShare::Hold kept = a.active();
  auto waiting = std::async(std::launch::async, [&] {
    const auto alone = b.alone();
    return 0;
  });
  std::this_thread::sleep_for(50ms);
  EXPECT_TRUE(a.try_active(true).held()) << "a start beside the member's own work was held back";
  EXPECT_FALSE(a.try_active().held()) << "other new work of the member began while another waited";
  kept.release();
  ASSERT_EQ(waiting.wait_for(5s), std::future_status::ready) << "the waiting member was never alone";
  EXPECT_TRUE(a.try_active(true).held()) << "refused with no one else on the GPU";
}

TEST_F(GpuShareTest, WithoutAFileEveryHoldIsGrantedAtOnce) {
  GpuShare own;
  EXPECT_FALSE(own.shared());
  const auto alone = own.alone(0ms);
  const auto again = own.alone(0ms);
  const auto active = own.active(0ms);
  EXPECT_TRUE(alone.held() && again.held() && active.held());
}

TEST_F(GpuShareTest, AFileNotAShareIsRefusedByName) {
  std::ofstream(file()) << "not a share's table";
  ::chmod(file().c_str(), 0600);
  try {
    GpuShare member(file());
    FAIL() << "accepted a file that is not a share's";
  } catch (const SetupError& e) {
    EXPECT_NE(std::string(e.what()).find(file().string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--gpu-share"), std::string::npos) << e.what();
  }
}

TEST_F(GpuShareTest, AFileOthersCanWriteIsRefused) {
  std::ofstream(file()).close();
  ::chmod(file().c_str(), 0666);
  EXPECT_THROW(GpuShare{file()}, SetupError);
  EXPECT_THROW(GpuShare{dir_}, SetupError) << "a folder";
}

}  // namespace
}  // namespace spmv::grade
