// The interleaved timing loop: alternation, stopping rules, medians.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include "fresh_seed.hpp"
#include "judging/timing_checks.hpp"
#include "rows/burst_timing.hpp"
#include "spmv/runner/timing.hpp"

namespace spmv::runner {
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
  const auto results =
      time_interleaved(sides, {.min_runs = 5, .max_runs = 100, .warmup_runs = 2, .min_time_ms = 0}, [&] {
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
  const auto results =
      time_interleaved({sleepy}, {.min_runs = 1, .max_runs = 1000, .warmup_runs = 0, .min_time_ms = 20});
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

TEST(TimeInterleaved, StopsAtTheMaximumTimeShortOfTheMinimumCount) {
  const TimedLaunch slow = [] {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return 5.0;
  };
  const auto results = time_interleaved(
      {slow}, {.min_runs = 1000, .max_runs = 100000, .warmup_runs = 0, .min_time_ms = 0, .max_time_ms = 30});
  EXPECT_GE(results[0].samples, 1);
  EXPECT_LE(results[0].samples, 7) << "went on past 30 ms of 5 ms launches";
  const auto one = time_interleaved(
      {slow}, {.min_runs = 1000, .max_runs = 100000, .warmup_runs = 0, .min_time_ms = 0, .max_time_ms = 0});
  EXPECT_EQ(one[0].samples, 1) << "a median needs one sample, whatever the limit";
}

TEST(TimingSummary, MedianMinimumMaximumAndCount) {
  const TimingResult odd = summarize({5.0, 1.0, 3.0});
  EXPECT_EQ(odd.median_ms, 3.0);
  EXPECT_EQ(odd.min_ms, 1.0);
  EXPECT_EQ(odd.max_ms, 5.0);
  EXPECT_EQ(odd.samples, 3);
  EXPECT_EQ(summarize({4.0, 1.0, 2.0, 8.0}).median_ms, 3.0);
  EXPECT_THROW(summarize({}), std::invalid_argument);
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
}  // namespace spmv::runner

// The grader's bounds on a row's timing (timing_checks.hpp): each rule fires
// on a timing that breaks it, and none on an honest one.
namespace spmv::grade {
namespace {

TimingRecord honest_timing(std::mt19937_64& random) {
  std::uniform_real_distribution<double> ms(0.005, 2.0);
  TimingRecord t;
  t.timed = true;
  t.submission_ms = ms(random);
  t.reference_ms = t.submission_ms * std::uniform_real_distribution<double>(0.5, 2.0)(random);
  // The runner's own events: its whole bursts a little inside the grader's
  // round trips.
  t.submission_burst_ms = std::uniform_real_distribution<double>(1, 6)(random);
  t.submission_event_burst_ms = t.submission_burst_ms * std::uniform_real_distribution<double>(0.8, 0.99)(random);
  t.submission_samples = t.reference_samples = 5;
  return t;
}

TEST(TimingChecks, AnHonestTimingIsNotFlagged) {
  const std::uint64_t seed = ::spmv::test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 random{seed};
  for (int trial = 0; trial < 100; ++trial) {
    TimingRecord t = honest_timing(random);
    // 1 MB in the measured time needs well under the copy bandwidth.
    const auto bytes = static_cast<std::uint64_t>(t.submission_ms * 1e6 * 100);  // 100 GB/s
    apply_timing_checks(t, {bytes, 3000.0, 10});
    EXPECT_TRUE(t.flags.empty()) << t.flag_reasons.front();
    for (const auto& [bound, use] : t.bound_use) EXPECT_LT(use, 1) << bound;
  }
}

TEST(TimingChecks, RunnerEventsThatDisagreeWithTheGradersClockAreFlagged) {
  const std::uint64_t seed = ::spmv::test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 random{seed};
  for (const double factor : {1 / 2.0, 1 / 3.0, 1 / 100.0, 1.5}) {
    TimingRecord t = honest_timing(random);
    t.submission_event_burst_ms = t.submission_burst_ms * 0.95 * factor;  // a timer forged (or a clock slowed)
    const double grade_before = t.submission_ms;
    apply_timing_checks(t, {0, std::nullopt, 1e9});
    EXPECT_EQ(t.flags, std::vector<std::string>{"implausible_timing"}) << factor;
    EXPECT_NE(t.flag_reasons.front().find("timers"), std::string::npos);
    EXPECT_GE(t.bound_use.at("events"), 1);
    EXPECT_EQ(t.submission_ms, grade_before) << "the events never change the graded time";
  }
  TimingRecord host = honest_timing(random);
  host.submission_event_burst_ms = 0;  // no events on the host path: nothing to compare
  apply_timing_checks(host, {0, std::nullopt, 1e9});
  EXPECT_TRUE(host.flags.empty());
}

// The events check takes the burst whose events came closest to the clock:
// bursts lengthened by the clock alone (a runner starting beside them)
// leave an honest kernel unflagged, and a timer forged on every burst is
// flagged whichever bursts were disturbed.
TEST(TimingChecks, TheEventsCheckIsNotMisledByBurstsTheClockAloneSawLonger) {
  const std::uint64_t seed = ::spmv::test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 random{seed};
  std::uniform_real_distribution<double> burst(1, 6), inside(0.8, 0.99), delay(1.5, 4);
  for (int trial = 0; trial < 50; ++trial) {
    const int count = 4 + trial % 4;
    std::vector<double> clock, honest, forged;
    for (int k = 0; k < count; ++k) {
      const double ms = burst(random);
      const double events = ms * inside(random);
      // Half of the bursts (rounded up) disturbed: their medians disagree.
      clock.push_back(k % 2 == 0 ? ms + delay(random) : ms);
      honest.push_back(events);
      forged.push_back(events / (trial % 2 == 0 ? 2.0 : 3.0));
    }
    for (const bool forge : {false, true}) {
      TimingRecord t = honest_timing(random);
      std::tie(t.submission_burst_ms, t.submission_event_burst_ms) = closest_events(clock, forge ? forged : honest);
      EXPECT_NE(std::find(clock.begin(), clock.end(), t.submission_burst_ms), clock.end());
      apply_timing_checks(t, {0, std::nullopt, 1e9});
      EXPECT_EQ(t.flags.empty(), !forge) << "trial " << trial << (forge ? ", forged" : ", honest");
    }
  }
  EXPECT_EQ(closest_events({}, {}), (std::pair<double, double>{0, 0}));
  EXPECT_EQ(closest_events({2.0, 3.0, 2.5}, {1.0, 2.7, 1.5}), (std::pair<double, double>{3.0, 2.7}));
}

TEST(TimingChecks, FasterThanTheBandwidthAllowsIsImplausible) {
  const std::uint64_t seed = ::spmv::test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 random{seed};
  TimingRecord t = honest_timing(random);
  // Out of L2 (above kL2Bytes): the floor is bytes / (1.5 x copy bandwidth).
  const std::uint64_t bytes = kL2Bytes * 4;
  const double floor_ms = static_cast<double>(bytes) / (3000.0 * kFloorMargin * 1e6);
  t.submission_ms = floor_ms * 0.9;
  t.reference_ms = t.submission_ms;
  apply_timing_checks(t, {bytes, 3000.0, 10});
  EXPECT_EQ(t.flags, std::vector<std::string>{"implausible_timing"});
  TimingRecord above = honest_timing(random);
  above.submission_ms = floor_ms * 1.1;
  above.reference_ms = above.submission_ms;
  apply_timing_checks(above, {bytes, 3000.0, 10});
  EXPECT_TRUE(above.flags.empty());
}

TEST(BurstTiming, PerLaunchTimeIsTheFastestBurstsLessTheFastestCalibrationPerLink) {
  const std::uint64_t seed = ::spmv::test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 random{seed};
  const double launch = std::uniform_real_distribution<double>(0.001, 1.0)(random);
  const double own = std::uniform_real_distribution<double>(0.05, 0.5)(random);  // round trip and runner kernels
  const int links = std::uniform_int_distribution<int>(1, runner::kMaxLinks)(random);
  std::uniform_real_distribution<double> slowed(0.0, 0.5 * links * launch);
  std::vector<double> bursts, empty;
  for (int k = 0; k < 7; ++k) {
    // Two bursts alone on the GPU; the others slowed by other load.
    bursts.push_back(own + links * launch + (k == 2 || k == 5 ? 0.0 : slowed(random) + 1e-6));
    empty.push_back(own + (k == 1 || k == 4 ? 0.0 : slowed(random) + 1e-6));
  }
  std::shuffle(bursts.begin(), bursts.end(), random);
  EXPECT_NEAR(per_launch_ms(bursts, empty, links), launch, 1e-9) << "the slowed bursts change nothing";
  EXPECT_EQ(per_launch_ms({}, empty, links), 0);
  EXPECT_NEAR(burst_noise(bursts, empty), 0, 1e-9) << "the two fastest agree";
  EXPECT_DOUBLE_EQ(fastest_two({3.0, 1.0, 2.0, 9.0}), 1.5);
  EXPECT_DOUBLE_EQ(fastest_two({4.0}), 4.0);
  EXPECT_EQ(fastest_two({}), 0);
}

// The reference's windows (before and after the submission): their mean
// while they agree within kWindowsAgree, the faster one when one of them
// was disturbed.
TEST(BurstTiming, TheReferenceIsItsWindowsMeanUnlessOneWasDisturbed) {
  const std::uint64_t seed = ::spmv::test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 random{seed};
  const double launch = std::uniform_real_distribution<double>(0.001, 1.0)(random);
  const double own = std::uniform_real_distribution<double>(0.05, 0.5)(random);
  const int links = std::uniform_int_distribution<int>(1, runner::kMaxLinks)(random);
  const double level = std::uniform_real_distribution<double>(1.0, 1.0 + kWindowsAgree * 0.9)(random);
  const std::vector<double> empty{own, own};
  const auto window = [&](double factor) {
    return std::vector<double>{own + links * launch * factor, own + links * launch * factor};
  };
  const auto before = window(1.0), after = window(level);
  EXPECT_NEAR(windows_per_launch_ms({before, after}, empty, links), launch * (1 + level) / 2, 1e-9);
  EXPECT_NEAR(windows_disagreement({before, after}, empty, links), level - 1, 1e-9);
  // Disturbed: more than kWindowsAgree slower than the other window (after),
  // whatever level it was drawn at.
  const double disturbed = level * std::uniform_real_distribution<double>(1.0 + kWindowsAgree * 1.1, 2.0)(random);
  EXPECT_GT(windows_disagreement({window(disturbed), after}, empty, links), kWindowsAgree);
  EXPECT_NEAR(windows_per_launch_ms({window(disturbed), after}, empty, links), launch * level, 1e-9);
  EXPECT_NEAR(windows_per_launch_ms({before, {}}, empty, links), launch, 1e-9) << "a short row: one window";
}

TEST(BurstTiming, TheBurstsThatMayDecideTheTimeAreTheTwoFastest) {
  EXPECT_TRUE(among_fastest_two(5, {5}));
  EXPECT_TRUE(among_fastest_two(5, {3, 5}));
  EXPECT_TRUE(among_fastest_two(4, {3, 7, 8, 4}));
  EXPECT_FALSE(among_fastest_two(7, {3, 7, 8, 4}));
  EXPECT_TRUE(among_fastest_two(3, {3, 3, 3})) << "a tie with the fastest decides the time too";
}

TEST(BurstTiming, BurstsWhoseTwoFastestDisagreeAskForMoreUpToTheMaximum) {
  const runner::TimingOptions options{.min_runs = 3, .max_runs = 6, .warmup_runs = 1, .min_time_ms = 5};
  const std::vector<double> empty{1, 1, 1};
  EXPECT_TRUE(needs_more_bursts({11, 11}, empty, options)) << "fewer than min_runs";
  EXPECT_FALSE(needs_more_bursts({11, 11, 11}, empty, options)) << "steady";
  EXPECT_FALSE(needs_more_bursts({11, 14, 11.1}, empty, options)) << "one slowed burst: the fastest two agree";
  EXPECT_TRUE(needs_more_bursts({11, 13, 12}, empty, options)) << "the fastest two 10% apart";
  EXPECT_FALSE(needs_more_bursts({11, 13, 12, 14, 15, 16}, empty, options)) << "max_runs reached";
}

TEST(BurstTiming, LinksFillTheBurstWithinTheHistoryLimitAndTheReplysDigests) {
  EXPECT_EQ(choose_links(0.02, 1000, 5), 250);
  EXPECT_EQ(choose_links(0.0001, 1000, 5), runner::kMaxLinks) << "at most one digest per reply slot";
  EXPECT_EQ(choose_links(10, 1000, 5), 1) << "at least one link";
  EXPECT_EQ(choose_links(10, 1000, 0), 1);
  // 100M rows: 400 MB a link, so two links fit the 1 GiB history.
  EXPECT_EQ(choose_links(0.001, 100'000'000, 5), 2);
}

TEST(BurstTiming, ARunnerKeepsEveryPairItsBurstsMayCheckWithinTheLimit) {
  runner::TimingOptions options;
  options.warmup_runs = 1;
  options.min_runs = 4;
  options.max_runs = 10;
  // Eleven bursts, each with up to kChecksFastBurst links checked.
  EXPECT_EQ(kept_pairs(1000, options), 11 * kChecksFastBurst);
  options.max_runs = 40;
  EXPECT_EQ(kept_pairs(1000, options), runner::kMaxKeptPairs) << "the runner's own limit";
  // 12M rows: 96 MB a pair, so eleven pairs fit in 1 GiB.
  options.max_runs = 10;
  EXPECT_EQ(kept_pairs(12'000'000, options), 11);
  EXPECT_EQ(kept_pairs(1'000'000'000, options), 1) << "at least one pair, copied out after each link";
  options.warmup_runs = 0;
  options.max_runs = 0;
  EXPECT_EQ(kept_pairs(1000, options), (1 + 4) * kChecksFastBurst) << "min_runs bursts and a warm-up at least";
}

TEST(TimingChecks, ASpeedupAboveThePolicysThresholdIsForReview) {
  const std::uint64_t seed = ::spmv::test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 random{seed};
  TimingRecord t = honest_timing(random);
  t.reference_ms = t.submission_ms * 12;
  apply_timing_checks(t, {0, std::nullopt, 10});
  EXPECT_EQ(t.flags, std::vector<std::string>{"speedup_review"});
  TimingRecord allowed = honest_timing(random);
  allowed.reference_ms = allowed.submission_ms * 12;
  apply_timing_checks(allowed, {0, std::nullopt, 20});
  EXPECT_TRUE(allowed.flags.empty());
}

// A correctness-only row (its reference too short to rank by speed): no
// speed-based flag however fast or slow it looks, and the events check
// still catches a forged timer.
TEST(TimingChecks, ACorrectnessOnlyRowGetsTheEventsCheckOnly) {
  const std::uint64_t seed = ::spmv::test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 random{seed};
  TimingRecord t = honest_timing(random);
  const std::uint64_t bytes = kL2Bytes * 4;
  t.submission_ms = static_cast<double>(bytes) / (3000.0 * kFloorMargin * 1e6) * 0.5;  // below the floor
  t.reference_ms = t.submission_ms * std::uniform_real_distribution<double>(11, 100)(random);
  TimingRecord forged = t;
  apply_timing_checks(t, {.compulsory_bytes = bytes, .copy_gbps = 3000.0, .speedup_review = 10, .speed_checks = false});
  EXPECT_TRUE(t.flags.empty()) << t.flag_reasons.front();
  forged.submission_event_burst_ms = forged.submission_burst_ms / 3;
  apply_timing_checks(forged,
                      {.compulsory_bytes = bytes, .copy_gbps = 3000.0, .speedup_review = 10, .speed_checks = false});
  EXPECT_EQ(forged.flags, std::vector<std::string>{"implausible_timing"});
  EXPECT_NE(forged.flag_reasons.front().find("timers"), std::string::npos);
}

}  // namespace
}  // namespace spmv::grade
