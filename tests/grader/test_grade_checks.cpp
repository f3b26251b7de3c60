// The grader's row checks on synthetic result areas (what a runner would
// leave behind), and the trusted child processes of the GPU check.
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <unistd.h>

#include <bit>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "judging/correctness.hpp"
#include "judging/row_record.hpp"
#include "judging/verdict.hpp"
#include "random_csr.hpp"
#include "runners/process.hpp"
#include "spmv/runner/chain.hpp"

namespace spmv::grade {
namespace {

// A case ready to check against, built without any case file.
PreparedCase prepared_case(std::mt19937_64& rng) {
  PreparedCase p;
  p.csr = test::random_csr(rng, {.rows = 300, .cols = 200, .empty_fraction = 0.1, .long_row = 100});
  for (int which = 0; which < kXVectors; ++which) {
    p.x[which] = test::random_x(rng, p.csr.cols);
    p.golden[which] = golden_spmv(p.csr, p.x[which]);
  }
  return p;
}

// A result area as a runner writes it: kSlots of guard + y + guard.
struct Area {
  explicit Area(std::int64_t row_count)
      : rows(row_count), words(runner::kSlots * runner::slot_words(row_count), runner::kGuardBits) {}
  [[nodiscard]] std::uint32_t& word(int run, std::int64_t k) {  // k: index into y, may be < 0 or >= rows
    return words[static_cast<std::size_t>(run) * runner::slot_words(rows) + runner::kYGuardWords +
                 static_cast<std::size_t>(k)];
  }
  [[nodiscard]] ResultView view() const { return {words.data(), rows}; }
  std::int64_t rows;
  std::vector<std::uint32_t> words;
};

// What a correct kernel leaves: intact guards, y = golden rounded once.
void fill_correct(const PreparedCase& p, Area& area) {
  for (int run = 0; run < kRunsPerRow; ++run) {
    const auto& golden = p.golden[x_of_run(run)].y;
    for (std::size_t i = 0; i < golden.size(); ++i) {
      area.word(run, static_cast<std::int64_t>(i)) = std::bit_cast<std::uint32_t>(static_cast<float>(golden[i]));
    }
  }
}

void set_y(Area& area, int run, std::size_t row, float value) {
  area.word(run, static_cast<std::int64_t>(row)) = std::bit_cast<std::uint32_t>(value);
}

// A non-empty row whose value is not zero, to tamper with.
std::size_t nonempty_row(const PreparedCase& p) {
  for (index_t row = 0; row < p.csr.rows; ++row) {
    if (p.csr.row_length(row) > 0 && p.golden[0].y[static_cast<std::size_t>(row)] != 0) {
      return static_cast<std::size_t>(row);
    }
  }
  throw std::logic_error("no nonempty row");
}

// The state letter of /proc/<pid>/stat ('R', 'S', 'Z', ...); '\0' when
// there is no such process.
char process_state(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(stat, text);
  const auto end_of_name = text.rfind(')');
  return end_of_name == std::string::npos || end_of_name + 2 >= text.size() ? '\0' : text[end_of_name + 2];
}

class RowChecks : public ::testing::Test {
 protected:
  void SetUp() override { fill_correct(p_, area_); }
  std::uint64_t seed_ = test::fresh_seed();
  std::mt19937_64 rng_{seed_};
  PreparedCase p_ = prepared_case(rng_);
  Area area_{p_.csr.rows};
  std::string modified_;
};

// A burst as an honest runner makes it (spmv/runner/chain.hpp), on the
// host: each link's x from the seed and the previous y, y = A x rounded
// once; the digests as its reply carries them.
struct Burst {
  std::vector<std::vector<float>> ys;
  std::vector<std::uint64_t> digests;
};
Burst honest_burst(const PreparedCase& p, std::uint64_t seed, int links) {
  Burst burst;
  for (int link = 1; link <= links; ++link) {
    std::vector<float> x(static_cast<std::size_t>(p.csr.cols));
    std::vector<std::uint32_t> before;
    if (link > 1) {
      for (const float value : burst.ys.back()) before.push_back(std::bit_cast<std::uint32_t>(value));
    }
    for (std::size_t i = 0; i < x.size(); ++i) {
      x[i] = std::bit_cast<float>(
          runner::link_x_word(seed, link, before.empty() ? nullptr : before.data(), before.size(), x.size(), i));
    }
    const GoldenResult golden = golden_spmv(p.csr, x);
    std::vector<float> y(golden.y.begin(), golden.y.end());
    std::vector<std::uint32_t> bits(y.size());
    for (std::size_t i = 0; i < y.size(); ++i) bits[i] = std::bit_cast<std::uint32_t>(y[i]);
    burst.digests.push_back(runner::digest_of(bits));
    burst.ys.push_back(std::move(y));
  }
  return burst;
}

// The result area after kCopyLink of `link`: y_(link-1) and y_link.
void copy_link(const Burst& burst, int link, Area& area) {
  for (std::size_t i = 0; i < burst.ys[0].size(); ++i) {
    if (link > 1)
      area.word(runner::kPreviousLinkSlot, static_cast<std::int64_t>(i)) =
          std::bit_cast<std::uint32_t>(burst.ys[link - 2][i]);
    area.word(runner::kLinkSlot, static_cast<std::int64_t>(i)) = std::bit_cast<std::uint32_t>(burst.ys[link - 1][i]);
  }
}

TEST_F(RowChecks, AnHonestBurstsLinksPassTheirCheck) {
  const std::uint64_t seed = rng_();
  const Burst burst = honest_burst(p_, seed, 4);
  for (int link = 1; link <= 4; ++link) {
    copy_link(burst, link, area_);
    EXPECT_EQ(check_link(p_, seed, link, burst.digests, area_.view()), "") << link << "\n" << test::seed_note(seed_);
  }
}

TEST_F(RowChecks, ALinkSkippedFakedOrDoneAfterTheReplyIsCaught) {
  const std::uint64_t seed = rng_();
  Burst burst = honest_burst(p_, seed, 4);
  // Launch 3 did nothing: its y is launch 2's, and the chain went on from it.
  Burst skipped = burst;
  skipped.ys[2] = skipped.ys[1];
  skipped.digests[2] = skipped.digests[1];
  copy_link(skipped, 3, area_);
  EXPECT_NE(check_link(p_, seed, 3, skipped.digests, area_.view()).find("link 3 of 4"), std::string::npos);
  // A reply sent before the work was done: digests that no y left matches.
  std::vector<std::uint64_t> forged(burst.digests.size(), 0x5eed);
  copy_link(burst, 2, area_);
  EXPECT_NE(check_link(p_, seed, 2, forged, area_.view()).find("reply"), std::string::npos);
  // The y copied out is right for its x but not the one the reply was made
  // from (computed when the copy was asked for).
  Burst late = burst;
  late.ys[1][0] = std::nextafter(late.ys[1][0], 2.0F);
  copy_link(late, 2, area_);
  EXPECT_NE(check_link(p_, seed, 2, burst.digests, area_.view()).find("reply"), std::string::npos);
  // Another seed: every x differs.
  copy_link(burst, 1, area_);
  EXPECT_FALSE(check_link(p_, seed + 1, 1, burst.digests, area_.view()).empty());
}

// The grader checks a kept link on a copy of the link's two slots alone
// (link_checks.cpp): that copy is judged as the whole area is, and a slot
// it does not hold is never read.
TEST_F(RowChecks, ACopyOfALinksTwoSlotsIsCheckedAsTheWholeArea) {
  const std::uint64_t seed = rng_();
  const Burst burst = honest_burst(p_, seed, 3);
  const std::size_t words = runner::slot_words(p_.csr.rows);
  const auto two_slots = [&] {
    const auto first = area_.words.begin() + static_cast<std::ptrdiff_t>(runner::kPreviousLinkSlot * words);
    return std::vector<std::uint32_t>(first, first + static_cast<std::ptrdiff_t>(2 * words));
  };
  for (int link = 1; link <= 3; ++link) {
    copy_link(burst, link, area_);
    const std::vector<std::uint32_t> copy = two_slots();
    const ResultView view(copy.data(), p_.csr.rows, runner::kPreviousLinkSlot);
    EXPECT_EQ(check_link(p_, seed, link, burst.digests, view), "") << link << "\n" << test::seed_note(seed_);
  }
  // A wrong y in the copied link slot, and one in the slot before it.
  const std::size_t row = nonempty_row(p_);
  copy_link(burst, 3, area_);
  std::vector<std::uint32_t> wrong = two_slots();
  wrong[words + runner::kYGuardWords + row] ^= 1U << 22;
  EXPECT_NE(check_link(p_, seed, 3, burst.digests, ResultView(wrong.data(), p_.csr.rows, runner::kPreviousLinkSlot)),
            "")
      << test::seed_note(seed_);
  wrong = two_slots();
  wrong[runner::kYGuardWords + row] ^= 1U << 22;
  EXPECT_NE(check_link(p_, seed, 3, burst.digests, ResultView(wrong.data(), p_.csr.rows, runner::kPreviousLinkSlot))
                .find("the link before it"),
            std::string::npos)
      << test::seed_note(seed_);
  const std::vector<std::uint32_t> copy = two_slots();
  const ResultView view(copy.data(), p_.csr.rows, runner::kPreviousLinkSlot);
  EXPECT_THROW(static_cast<void>(view.y(0)), std::logic_error);
  EXPECT_EQ(view.y(runner::kLinkSlot).data(),
            reinterpret_cast<const float*>(copy.data() + words + runner::kYGuardWords));
}

// A kernel cannot make the next x without every bit of its y: flipping any
// bit of y_(k-1) changes x_k, for tall and wide matrices alike.
TEST(Chain, EveryBitOfThePreviousYReachesTheNextX) {
  std::mt19937_64 rng(test::fresh_seed());
  const std::uint64_t seed = rng();
  const auto x_of = [&](const std::vector<std::uint32_t>& y, std::size_t cols) {
    std::vector<std::uint32_t> x(cols);
    for (std::size_t i = 0; i < cols; ++i) x[i] = runner::link_x_word(seed, 3, y.data(), y.size(), cols, i);
    return x;
  };
  for (const auto& [rows, cols] : {std::pair<std::size_t, std::size_t>{300, 200}, {200, 300}, {257, 1}, {1, 50}}) {
    std::vector<std::uint32_t> y(rows);
    for (auto& word : y) word = static_cast<std::uint32_t>(rng());
    const auto x = x_of(y, cols);
    for (int trial = 0; trial < 20; ++trial) {
      auto changed = y;
      changed[rng() % rows] ^= 1U << (rng() % 32);
      EXPECT_NE(x_of(changed, cols), x) << rows << "x" << cols;
    }
  }
}

TEST_F(RowChecks, CorrectResultsPass) {
  const Correctness c = evaluate_correctness(p_, area_.view(), modified_);
  EXPECT_TRUE(c.passed) << c.summary << "\n" << test::seed_note(seed_);
  EXPECT_TRUE(c.cause.empty());
  EXPECT_LE(c.max_ratio, 1);
}

TEST_F(RowChecks, WritesPastEitherEndOfYAreOutOfBounds) {
  area_.word(1, p_.csr.rows + 2) = 0;  // y[rows + 2]
  area_.word(1, -1) = 0;               // y[-1]
  const Correctness c = evaluate_correctness(p_, area_.view(), modified_);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.cause, "out_of_bounds_write");
  EXPECT_NE(c.summary.find("y[-1]"), std::string::npos) << c.summary;
  EXPECT_NE(c.summary.find("y[" + std::to_string(p_.csr.rows + 2) + "]"), std::string::npos) << c.summary;
  EXPECT_NE(c.summary.find("run 2"), std::string::npos) << c.summary;
}

TEST_F(RowChecks, ChangedInputsAreReportedByName) {
  modified_ = "values, x (run 1 (first x))";
  const Correctness c = evaluate_correctness(p_, area_.view(), modified_);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.cause, "modified_input");
  EXPECT_NE(c.summary.find("values"), std::string::npos) << c.summary;
}

// A row whose checked runs passed in the kernel's first runner is judged
// from that finding (they are not compared again), unless the kernel's
// timing runner reported an input changed by its own run: that still fails.
TEST_F(RowChecks, RunsJudgedCorrectAlreadyStandUnlessALaterRunChangedAnInput) {
  const Correctness first = evaluate_correctness(p_, area_.view(), modified_);
  ASSERT_TRUE(first.passed) << first.summary << "\n" << test::seed_note(seed_);
  const RowContext context{p_, SPMV_FORMAT_CSR, 10, std::nullopt};
  const auto judged = [&](const std::string& modified) {
    RowRecord record;
    record.completed = true;
    record.stage = Stage::kDone;
    record.results = area_.view();
    record.runs_correct_max_ratio = first.max_ratio;
    record.modified_inputs = modified;
    RowResult row;
    judge_row(row, record, context);
    return row;
  };
  const RowResult kept = judged("");
  EXPECT_EQ(kept.verdict, Verdict::kPass) << kept.summary;
  ASSERT_TRUE(kept.max_error_ratio.has_value());
  EXPECT_DOUBLE_EQ(*kept.max_error_ratio, first.max_ratio);
  const RowResult changed = judged("x (run 1 (first x))");
  EXPECT_EQ(changed.verdict, Verdict::kWrong) << changed.summary;
  EXPECT_EQ(changed.cause, "modified_input") << changed.summary;
}

TEST_F(RowChecks, PoisonLeftInYIsAnUnwrittenRow) {
  const std::size_t row = nonempty_row(p_);
  for (int run = 0; run < kRunsPerRow; ++run) area_.word(run, static_cast<std::int64_t>(row)) = kPoisonBits;
  const Correctness c = evaluate_correctness(p_, area_.view(), modified_);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.cause, "unwritten_rows") << c.summary << "\n" << test::seed_note(seed_);
  ASSERT_TRUE(c.first_bad);
  EXPECT_EQ(c.first_bad->row, static_cast<std::int64_t>(row));
  EXPECT_TRUE(std::isinf(c.max_ratio));
}

TEST_F(RowChecks, AnErrorThatMovesBetweenRunsWithTheSameXIsARace) {
  const std::size_t row = nonempty_row(p_);
  set_y(area_, 2, row, static_cast<float>(p_.golden[0].y[row] * 2 + 1));
  const Correctness c = evaluate_correctness(p_, area_.view(), modified_);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.cause, "race") << c.summary << "\n" << test::seed_note(seed_);
  EXPECT_NE(c.summary.find("row " + std::to_string(row)), std::string::npos) << c.summary;
}

// The timing runner's one checked run (kernel_grading.cpp): its y alone is
// judged, whatever the slots of runs it did not make hold; and it is still
// judged.
TEST_F(RowChecks, AOneRunCheckJudgesThatRunAlone) {
  const std::size_t row = nonempty_row(p_);
  for (int run = 1; run < kRunsPerRow; ++run) area_.word(run, static_cast<std::int64_t>(row)) = kPoisonBits;
  const Correctness one = evaluate_correctness(p_, area_.view(), modified_, 1);
  EXPECT_TRUE(one.passed) << one.summary << "\n" << test::seed_note(seed_);
  EXPECT_FALSE(evaluate_correctness(p_, area_.view(), modified_).passed) << "runs 2 and 3 were not judged";
  set_y(area_, 0, row, static_cast<float>(p_.golden[0].y[row] * 2 + 1));
  const Correctness wrong = evaluate_correctness(p_, area_.view(), modified_, 1);
  EXPECT_FALSE(wrong.passed);
  EXPECT_NE(wrong.cause, "race") << "one run cannot show a race";
  EXPECT_NE(wrong.summary.find("run 1"), std::string::npos) << wrong.summary;
  EXPECT_EQ(wrong.detail.find("run 2"), std::string::npos) << "runs not made were judged: " << wrong.detail;
}

TEST_F(RowChecks, AWrongSecondRunAloneIsNoRace) {
  // As if the kernel returned run 1's result again: stale, not moving.
  for (std::size_t i = 0; i < p_.golden[0].y.size(); ++i) set_y(area_, 1, i, static_cast<float>(p_.golden[0].y[i]));
  const Correctness c = evaluate_correctness(p_, area_.view(), modified_);
  EXPECT_FALSE(c.passed);
  EXPECT_NE(c.cause, "race");
  EXPECT_NE(c.summary.find("run 2"), std::string::npos) << c.summary;
}

TEST_F(RowChecks, DoubledValuesAreNamed) {
  for (int run = 0; run < kRunsPerRow; ++run) {
    const auto& golden = p_.golden[x_of_run(run)].y;
    for (std::size_t i = 0; i < golden.size(); ++i) set_y(area_, run, i, static_cast<float>(2 * golden[i]));
  }
  const Correctness c = evaluate_correctness(p_, area_.view(), modified_);
  EXPECT_FALSE(c.passed);
  EXPECT_EQ(c.cause, "doubled") << c.summary << "\n" << test::seed_note(seed_);
}

TEST(Isolation, ASignalIsReportedWithItsName) {
  const auto exit = run_isolated([] { std::raise(SIGSEGV); }, 10, "/dev/null");
  EXPECT_EQ(exit.kind, ChildExit::Kind::kSignaled);
  EXPECT_EQ(exit.signal, SIGSEGV);
  EXPECT_EQ(describe_signal(exit.signal), "segmentation fault (SIGSEGV)");
}

TEST(Isolation, ExitStatusAndNormalEnd) {
  auto exit = run_isolated([] { std::exit(3); }, 10, "/dev/null");
  EXPECT_EQ(exit.kind, ChildExit::Kind::kExited);
  EXPECT_EQ(exit.code, 3);
  exit = run_isolated([] {}, 10, "/dev/null");
  EXPECT_EQ(exit.kind, ChildExit::Kind::kExited);
  EXPECT_EQ(exit.code, 0);
}

TEST(Isolation, AHangIsKilledAtTheTimeLimitWithWhatItStarted) {
  SharedRegion region(sizeof(pid_t));
  auto* grandchild = static_cast<pid_t*>(region.data());
  const auto exit = run_isolated(
      [&] {
        const pid_t pid = ::fork();
        if (pid == 0) ::pause();  // a process the child leaves behind
        *grandchild = pid;
        ::pause();
      },
      0.3, "/dev/null");
  EXPECT_EQ(exit.kind, ChildExit::Kind::kTimedOut);
  EXPECT_GE(exit.seconds, 0.3);
  EXPECT_LT(exit.seconds, 5);
  ASSERT_GT(*grandchild, 0);
  bool gone = false;
  for (int attempt = 0; attempt < 200 && !gone; ++attempt) {
    const char state = process_state(*grandchild);
    gone = state == '\0' || state == 'Z';  // a zombie has ended; only its parent has yet to reap it
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(gone) << "the child's own child outlived the time limit";
}

TEST(Isolation, OutputGoesToTheLogNotToTheGrader) {
  const auto log = std::filesystem::temp_directory_path() / ("spmv-isolation-" + std::to_string(::getpid()) + ".log");
  const auto exit = run_isolated([] { std::printf("from the child\n"); }, 10, log);
  EXPECT_EQ(exit.code, 0);
  std::ifstream file(log);
  std::string line;
  std::getline(file, line);
  EXPECT_EQ(line, "from the child");
  std::filesystem::remove(log);
}

}  // namespace
}  // namespace spmv::grade
