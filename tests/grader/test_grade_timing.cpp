// The interleaved timing loop: alternation, stopping rules, medians.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "timing.hpp"

namespace spmv::grade {
namespace {

TEST(Median, OddEvenAndUnordered) {
  EXPECT_EQ(median({5, 1, 100, 3, 2}), 3);
  EXPECT_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_EQ(median({7}), 7);
  EXPECT_THROW(median({}), std::invalid_argument);
}

TEST(TimeInterleaved, WarmsUpThenAlternatesUntilTheMinimumCount) {
  std::string calls;
  int a_calls = 0;
  const std::vector<TimedLaunch> sides{[&] {
                                         calls += 'a';
                                         return static_cast<double>(++a_calls);  // 1, 2, 3, ...
                                       },
                                       [&] {
                                         calls += 'b';
                                         return 10.0;
                                       }};
  bool timing_started = false;
  std::size_t calls_at_start = 0;
  const auto results = time_interleaved(sides, {.min_runs = 5, .max_runs = 100, .warmup_runs = 2, .min_time_ms = 0},
                                        [&] {
                                          timing_started = true;
                                          calls_at_start = calls.size();
                                        });
  EXPECT_TRUE(timing_started);
  EXPECT_EQ(calls_at_start, 4U) << "two warm-up launches per side come first";
  EXPECT_EQ(calls, "ababababababab") << "2 warm-up pairs, then 5 timed pairs";
  ASSERT_EQ(results.size(), 2U);
  EXPECT_EQ(results[0].samples, 5);
  EXPECT_EQ(results[0].median_ms, 5) << "samples 3..7 after two warm-up calls";
  EXPECT_EQ(results[1].median_ms, 10);
}

TEST(TimeInterleaved, RunsUntilTheMinimumWallClockTime) {
  const TimedLaunch sleepy = [] {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    return 0.001;  // what the clock on the device would say: tiny
  };
  const auto results = time_interleaved({sleepy}, {.min_runs = 1, .max_runs = 1000, .warmup_runs = 0, .min_time_ms = 20});
  EXPECT_GE(results[0].samples, 2) << "stopped before 20 ms of wall-clock time";
  EXPECT_LE(results[0].samples, 10) << "each sample takes at least 2 ms";
}

TEST(TimeInterleaved, StopsAtTheMaximumCount) {
  const TimedLaunch instant = [] { return 1.0; };
  const auto results =
      time_interleaved({instant, instant}, {.min_runs = 1, .max_runs = 7, .warmup_runs = 0, .min_time_ms = 1e9});
  EXPECT_EQ(results[0].samples, 7);
  EXPECT_EQ(results[1].samples, 7);
}

TEST(TimeInterleaved, AFailingLaunchEndsTheLoop) {
  int calls = 0;
  const TimedLaunch failing = [&]() -> double {
    if (++calls == 3) throw std::runtime_error("launch failed");
    return 1.0;
  };
  EXPECT_THROW(time_interleaved({failing}, {.min_runs = 10, .max_runs = 100, .warmup_runs = 0, .min_time_ms = 0}),
               std::runtime_error);
  EXPECT_EQ(calls, 3);
}

}  // namespace
}  // namespace spmv::grade
