// The arithmetic of a row's timing by chained bursts (spmv/runner/chain.hpp):
// how many launches a burst holds, a side's time per launch from its
// bursts and its calibration, and when a side has enough bursts. The
// row's steps are row_grading.cpp's; the bounds on the result are
// timing_checks.hpp's.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "spmv/runner/timing.hpp"

namespace spmv::grade {

// The options (spmv-grade's measuring options; runner::TimingOptions):
//   min_time_ms  a burst lasts about this long on the GPU (default 3): the
//                grader's clock around a round trip varies by tens of
//                microseconds, about 1% of it;
//   min_runs     bursts timed per side, at least (default 4), more while
//                the two fastest differ by more than kNoiseTarget of the
//                launches' share, up to max_runs (10); a row whose
//                reference is too short to score by speed (the policy's
//                min_reference_us) gets half_of_bursts on each side;
//   warmup_runs  untimed bursts first (default 1: a graph's first launch
//                uploads it).
// Calibration bursts: one beside each of the reference's bursts, and three
// in the submission's runner before it loads the plugin; both sides
// subtract the fastest two of them all.
//
// A window's time is the mean of its two fastest bursts, not a median: what
// slows a burst (another process creating or ending a CUDA context, the
// GPU's clocks ramping, the host scheduling the reply late) only ever adds
// time, so the fastest bursts are the ones that measured the launches
// alone, on both sides alike. No burst can be faster than its work: every
// link waits for the previous one's result, and the bursts that decide the
// time are checked more (kChecksFastBurst).
inline constexpr double kNoiseTarget = 0.02;
// The reference's first burst, which measures a link's time.
inline constexpr int kPilotLinks = 4;
// A burst's length on the GPU for a row known to be too short to score by
// speed (the policy's min_reference_us) from its pilot: its times are
// reported, not scored, and a shorter burst keeps a shorter history.
inline constexpr double kShortBurstMs = 1;
// Half of min_runs, at least 2: the bursts of each of the reference's two
// windows, at least; and all of the submission's bursts for a row too short
// to score by speed (its time is reported, not scored; each burst's links
// are checked all the same).
inline int half_of_bursts(const runner::TimingOptions& options) { return std::max(2, (options.min_runs + 1) / 2); }

// Links of each timed burst of the submission checked in full afterwards,
// chosen at random once the reply is in; and of a burst that is among the
// two fastest so far (one that may decide the time).
inline constexpr int kChecksPerBurst = 2;
inline constexpr int kChecksFastBurst = 4;
// The y history a burst keeps on the GPU (one y per link), at most.
inline constexpr std::size_t kMaxHistoryBytes = std::size_t{1} << 30;
// The checked links' y (pairs: the link's and the one before) a runner
// keeps while it bursts, at most: they are copied out once the bursts are
// done, since copies to the host between bursts slowed the bursts after
// them. A row that checks more pairs than fit copies them out when full.
inline constexpr std::size_t kMaxKeptLinkBytes = std::size_t{1} << 30;

// Pairs a runner keeps for a row of `rows` rows timed with `options`: every
// pair its bursts may check (warm-up bursts included), as far as
// kMaxKeptLinkBytes and runner::kMaxKeptPairs allow; at least one.
int kept_pairs(std::int64_t rows, const runner::TimingOptions& options);

// Links of a burst for a case of `rows` rows whose link (the reference's
// launch with the runner's own kernels) takes `link_ms`.
int choose_links(double link_ms, std::int64_t rows, double burst_ms);

// The mean of the two fastest of `ms` (the one value when there is one; 0
// when there is none).
double fastest_two(std::vector<double> ms);

// Whether `ms` is among the two fastest of `kept` (which holds it).
bool among_fastest_two(double ms, const std::vector<double>& kept);

// A side's bursts less its calibration bursts (links without the launch),
// by fastest_two, per link: the launch's time.
double per_launch_ms(const std::vector<double>& bursts_ms, const std::vector<double>& empty_ms, int links);

// The reference's time from its windows of bursts (before the submission's
// runner loads its plugin, after it ends): the mean of each window's
// per_launch_ms. Each window runs at a level of its own (the GPU's, for a
// few hundred milliseconds; up to 5% apart on the H100, before against
// after), and the submission's bursts are one window more: the fastest
// two of the windows pooled would compare the reference's faster window
// with the submission's one, a bias of about 2% against every submission
// (the reference graded as a submission on the H100: a geometric mean of
// 0.978 and 0.980 pooled, 1.003 by this mean, from the same bursts).
// Windows further apart than kWindowsAgree were disturbed (on the H100,
// bursts 45% slower through a whole window, beside the CPU's golden
// products of the largest cases): the faster window is the time then, as
// a disturbance only ever adds time.
inline constexpr double kWindowsAgree = 0.05;
double windows_per_launch_ms(const std::vector<std::vector<double>>& windows, const std::vector<double>& empty_ms,
                             int links);
// How far apart the windows' per_launch_ms are: the slowest over the
// fastest, less 1 (0 with fewer than two windows).
double windows_disagreement(const std::vector<std::vector<double>>& windows, const std::vector<double>& empty_ms,
                            int links);

// How far apart the two fastest bursts are, relative to the launches'
// share of a burst (fastest_two of the bursts less that of the
// calibration); 0 with fewer than two bursts.
double burst_noise(const std::vector<double>& bursts_ms, const std::vector<double>& empty_ms);

// Whether a side that has `count` bursts, whose noise (burst_noise) is
// `noise`, needs another: fewer than min_runs, or fewer than max_runs while
// the noise is above kNoiseTarget.
bool needs_more_bursts(int count, double noise, const runner::TimingOptions& options);
// The same for a side's bursts and its calibration.
bool needs_more_bursts(const std::vector<double>& bursts_ms, const std::vector<double>& empty_ms,
                       const runner::TimingOptions& options);

double median_of(std::vector<double> values);

// Of a side's bursts by the grader's clock and by its runner's own events
// (the same bursts, in order), the one whose events came closest to the
// clock (the largest events / clock): {clock, events}, {0, 0} for none.
// Something else on the machine lengthens some bursts by the clock alone;
// a forged timer shortens the events of every burst.
std::pair<double, double> closest_events(const std::vector<double>& clock_ms, const std::vector<double>& event_ms);

}  // namespace spmv::grade
