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

TEST(Launcher, RunsItsJobsInOrder) {
  Launcher launcher;
  std::atomic<int> last{0};
  bool in_order = true;
  std::vector<std::future<std::unique_ptr<Runner>>> done;
  for (int k = 1; k <= 20; ++k) {
    done.push_back(launcher.start([&, k] {
      in_order = in_order && last.exchange(k) == k - 1;
      return std::unique_ptr<Runner>();
    }));
  }
  for (auto& job : done) EXPECT_EQ(job.get(), nullptr);
  EXPECT_TRUE(in_order);
  EXPECT_EQ(last.load(), 20);
}

// A start queued behind a running one, when the launcher stops, never runs:
// its future says broken_promise, and stop() returns once the running job
// is done.
TEST(Launcher, StopDropsTheStartsNotBegun) {
  Launcher launcher;
  std::promise<void> release;
  std::promise<void> running;
  std::atomic<bool> first_ran{false};
  std::atomic<bool> queued_ran{false};
  auto first = launcher.start([&, gate = release.get_future().share()] {
    running.set_value();
    gate.wait();
    first_ran = true;
    return std::unique_ptr<Runner>();
  });
  auto queued = launcher.start([&] {
    queued_ran = true;
    return std::unique_ptr<Runner>();
  });
  // Stopped only once the first job has begun: a stop before the launcher's
  // thread took it would drop it too.
  ASSERT_EQ(running.get_future().wait_for(10s), std::future_status::ready);
  std::thread stopper([&] { launcher.stop(); });
  // stop() drops the queue before it waits for the running job.
  ASSERT_EQ(queued.wait_for(10s), std::future_status::ready);
  EXPECT_THROW(queued.get(), std::future_error);
  EXPECT_EQ(first.wait_for(0s), std::future_status::timeout) << "the running job is waited for, not cut";
  release.set_value();
  stopper.join();
  EXPECT_TRUE(first_ran);
  EXPECT_EQ(first.get(), nullptr);
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
