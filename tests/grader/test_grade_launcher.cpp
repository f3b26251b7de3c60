// The launcher that starts runners off the row's path: stopping it drops
// the starts not begun, so none of them runs after its owner has gone.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <thread>
#include <vector>

#include "runners/runner_client.hpp"

namespace spmv::grade {
namespace {

using namespace std::chrono_literals;

// As many as a device grading starts at once.
constexpr int kThreads = 2;

// Every job runs once, at most kThreads at a time, and that many
// do run at once: a runner's start (its sandbox, its process, its CUDA
// context) need not wait for the one before it.
TEST(Launcher, RunsEveryJobOnceUpToItsThreadsAtATime) {
  Launcher launcher(kThreads);
  std::atomic<int> running{0}, most{0}, ran{0};
  std::vector<std::future<std::unique_ptr<Runner>>> done;
  for (int k = 1; k <= 20; ++k) {
    done.push_back(launcher.start([&] {
      const int now = ++running;
      int seen = most.load();
      while (now > seen && !most.compare_exchange_weak(seen, now)) {
      }
      std::this_thread::sleep_for(2ms);
      --running;
      ++ran;
      return std::unique_ptr<Runner>();
    }));
  }
  for (auto& job : done) EXPECT_EQ(job.get(), nullptr);
  EXPECT_EQ(ran.load(), 20);
  EXPECT_LE(most.load(), kThreads);
}

TEST(Launcher, StartsAsManyJobsAtOnceAsItHasThreads) {
  Launcher launcher(kThreads);
  std::atomic<int> arrived{0};
  std::vector<std::future<std::unique_ptr<Runner>>> done;
  std::vector<bool> met(kThreads, false);
  for (int k = 0; k < kThreads; ++k) {
    done.push_back(launcher.start([&, k] {
      ++arrived;
      // Each waits for all the others to have begun: only jobs running at
      // once get past this.
      const auto until = std::chrono::steady_clock::now() + 10s;
      while (arrived.load() < kThreads && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(1ms);
      }
      met[static_cast<std::size_t>(k)] = arrived.load() == kThreads;
      return std::unique_ptr<Runner>();
    }));
  }
  for (auto& job : done) job.get();
  for (int k = 0; k < kThreads; ++k) EXPECT_TRUE(met[static_cast<std::size_t>(k)]) << k;
}

// A start queued behind running ones, when the launcher stops, never runs:
// its future says broken_promise, and stop() returns once the running jobs
// are done.
TEST(Launcher, StopDropsTheStartsNotBegun) {
  Launcher launcher(kThreads);
  std::promise<void> release;
  const std::shared_future<void> gate = release.get_future().share();
  std::atomic<int> running{0}, finished{0};
  std::atomic<bool> queued_ran{false};
  // Every thread busy with a job that waits for the gate.
  std::vector<std::future<std::unique_ptr<Runner>>> busy;
  for (int k = 0; k < kThreads; ++k) {
    busy.push_back(launcher.start([&, gate] {
      ++running;
      gate.wait();
      ++finished;
      return std::unique_ptr<Runner>();
    }));
  }
  auto queued = launcher.start([&] {
    queued_ran = true;
    return std::unique_ptr<Runner>();
  });
  // Stopped only once the busy jobs have begun: a stop before the
  // launcher's threads took them would drop them too.
  for (int wait = 0; wait < 10000 && running.load() < kThreads; ++wait) std::this_thread::sleep_for(1ms);
  ASSERT_EQ(running.load(), kThreads);
  std::thread stopper([&] { launcher.stop(); });
  // stop() drops the queue before it waits for the running jobs.
  ASSERT_EQ(queued.wait_for(10s), std::future_status::ready);
  EXPECT_THROW(queued.get(), std::future_error);
  for (auto& job : busy) {
    EXPECT_EQ(job.wait_for(0s), std::future_status::timeout) << "the running jobs are waited for, not cut";
  }
  release.set_value();
  stopper.join();
  EXPECT_EQ(finished.load(), kThreads);
  for (auto& job : busy) EXPECT_EQ(job.get(), nullptr);
  EXPECT_FALSE(queued_ran);
  // A start after the stop is refused the same way, never left pending.
  auto late = launcher.start([&] {
    queued_ran = true;
    return std::unique_ptr<Runner>();
  });
  ASSERT_EQ(late.wait_for(0s), std::future_status::ready);
  EXPECT_THROW(late.get(), std::future_error);
  EXPECT_FALSE(queued_ran);
}

}  // namespace
}  // namespace spmv::grade
