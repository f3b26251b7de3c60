// The GPU kept quiet while bursts are timed: a runner's start-up waits for
// a quiet period (or a row's reservation) to end, and a quiet period waits
// for the start-ups under way; both waits are bounded.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <memory>
#include <random>
#include <thread>
#include <utility>
#include <vector>

#include "fresh_seed.hpp"
#include "runners/quiet_gpu.hpp"

namespace spmv::grade {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// `hold` (a quiet period or a reservation) keeps a start from beginning
// until it is released, and no longer.
void expect_start_held_back(QuietGpu& gate, QuietGpu::Hold hold, const char* what) {
  std::atomic<bool> held{true};
  auto started = std::async(std::launch::async, [&] {
    const auto start = gate.start(10s);
    return held.load();
  });
  EXPECT_EQ(started.wait_for(100ms), std::future_status::timeout) << "a start began during " << what;
  held = false;
  hold.release();
  EXPECT_FALSE(started.get()) << what;
}

TEST(QuietGpu, AStartWaitsForTheQuietPeriodToEnd) {
  QuietGpu gate;
  expect_start_held_back(gate, gate.quiet(1s), "a quiet period");
}

TEST(QuietGpu, AQuietPeriodWaitsForTheStartsUnderWay) {
  QuietGpu gate;
  const std::uint64_t seed = ::spmv::test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937 random{static_cast<std::uint32_t>(seed)};
  const int starts = std::uniform_int_distribution<int>(1, 4)(random);
  std::atomic<int> running{0};
  std::vector<std::future<void>> done;
  std::promise<void> go;
  std::shared_future<void> released = go.get_future().share();
  for (int k = 0; k < starts; ++k) {
    auto begun = std::make_shared<std::promise<void>>();
    auto is_begun = begun->get_future();
    done.push_back(std::async(std::launch::async, [&, begun] {
      auto start = gate.start(1s);
      ++running;
      begun->set_value();
      released.wait();
      --running;
    }));
    is_begun.wait();
  }
  auto quiet = std::async(std::launch::async, [&] {
    const auto hold = gate.quiet(10s);
    return running.load();
  });
  EXPECT_EQ(quiet.wait_for(100ms), std::future_status::timeout) << "bursts timed while " << starts << " starts ran";
  go.set_value();
  EXPECT_EQ(quiet.get(), 0);
  for (auto& d : done) d.get();
}

// A row's reservation holds new starts back and waits for nothing: a start
// under way goes on, and the row goes on beside it.
TEST(QuietGpu, AReservationHoldsStartsBackAndWaitsForNone) {
  QuietGpu gate;
  auto under_way = gate.start(1s);
  const auto begin = Clock::now();
  auto reservation = gate.reserve();
  EXPECT_LT(Clock::now() - begin, 100ms) << "the reservation waited for a start under way";
  under_way.release();
  expect_start_held_back(gate, std::move(reservation), "a reservation");
}

TEST(QuietGpu, BothWaitsAreBounded) {
  QuietGpu gate;
  {
    const auto hung_start = gate.start(1s);
    const auto begin = Clock::now();
    const auto hold = gate.quiet(150ms);
    EXPECT_GE(Clock::now() - begin, 150ms);
    EXPECT_LT(Clock::now() - begin, 5s);
  }
  const auto long_quiet = gate.quiet(1s);
  const auto begin = Clock::now();
  const auto start = gate.start(150ms);
  EXPECT_GE(Clock::now() - begin, 150ms);
  EXPECT_LT(Clock::now() - begin, 5s);
}

}  // namespace
}  // namespace spmv::grade
