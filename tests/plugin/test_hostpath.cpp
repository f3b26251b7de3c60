// The host-path plugins (grader/hostpath), loaded as the grader loads them,
// on the course's worked examples (arrays as the slides list them), a
// generated matrix with empty and long rows, and an all-empty one. The host
// reference must pass the grader's tolerance check with every kernel;
// each fake must show exactly the fault it is named for, so that a grader
// test relying on it tests the grader and not the fake.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "sparse_test_support.hpp"
#include "spmv/core/convert.hpp"
#include "spmv/core/generators.hpp"
#include "spmv/core/golden.hpp"
#include "spmv/core/tolerance.hpp"
#include "spmv/memory/buffer.hpp"
#include "spmv/plugin/plugin.hpp"
#include "spmv/runner/launch.hpp"
#include "spmv/runner/y_guards.hpp"

namespace {

using spmv::LikelyCause;
using spmv::MemorySpace;

// The six submission kernels and the reference-only "sell".
const std::vector<std::string> kKernelNames = {"coo", "csr_scalar", "csr_vector", "ell", "hyb", "jds", "sell"};

// One matrix in every format.
struct Case {
  std::string name;
  spmv::CsrMatrix csr;
  spmv::CooMatrix coo;
  spmv::EllMatrix ell;
  spmv::HybMatrix hyb;
  spmv::JdsMatrix jds;
  spmv::SellMatrix sell;
};

Case teaching_kit() {
  using spmv::test::TeachingKit;
  return {"teaching kit 4x4",         TeachingKit::csr(), TeachingKit::coo(),           TeachingKit::ell(),
          TeachingKit::hyb_width_2(), TeachingKit::jds(), TeachingKit::sell_c2_sigma4()};
}

// SELL with the grader's default parameters, or `sell` when given.
Case converted(std::string name, spmv::CsrMatrix csr, const spmv::SellParams& sell = {}) {
  Case c{std::move(name), std::move(csr), {}, {}, {}, {}, {}};
  c.coo = spmv::to_coo(c.csr);
  c.ell = spmv::to_ell(c.csr);
  c.hyb = spmv::to_hyb(c.csr);
  c.jds = spmv::to_jds(c.csr);
  c.sell = spmv::to_sell(c.csr, sell);
  return c;
}

// Power-law rows (a few long ones reach HYB's COO part) with a tenth
// emptied. SELL in slices of 7 sorted in windows of 64: rows permuted, and
// a last slice with positions past the last row.
Case generated(std::uint64_t seed) {
  return converted("power law 1500x1200",
                   spmv::gen::with_empty_rows(spmv::gen::power_law(1500, 1200, 1.8, 400, seed), 0.1, seed),
                   spmv::test::sell_params(7, 64));
}

std::vector<Case> all_cases(std::uint64_t seed) {
  std::vector<Case> cases;
  cases.push_back(teaching_kit());
  cases.push_back(converted("textbook figure 14.1", spmv::test::TextbookFigure14_1::csr()));
  cases.push_back(generated(seed));
  cases.push_back(converted("all rows empty", spmv::gen::empty(5, 7)));
  return cases;
}

// A case's matrix in a kernel's format.
spmv::runner::AnyMatrix in_format(const Case& c, spmv_format format) {
  switch (format) {
    case SPMV_FORMAT_COO: return c.coo;
    case SPMV_FORMAT_CSR: return c.csr;
    case SPMV_FORMAT_ELL: return c.ell;
    case SPMV_FORMAT_HYB: return c.hyb;
    case SPMV_FORMAT_JDS: return c.jds;
    case SPMV_FORMAT_SELL: return c.sell;
  }
  throw std::invalid_argument("no such format");
}

// One launch through the run protocol (spmv/runner/launch.hpp), as the
// grader's runner makes it for a host plugin: x and y between guard zones,
// y poisoned, the matrix's arrays between guard zones.
struct Launch {
  spmv_status status = SPMV_SUCCESS;
  std::vector<float> y;               // the rows
  spmv::runner::GuardDamage guards;   // writes around y
  std::vector<std::string> modified;  // inputs changed: "x", "values", ...
};

// One kernel on one case: launches it and checks results as the grader does.
class KernelRun {
 public:
  KernelRun(const spmv_kernel_entry& kernel, const Case& c, std::uint64_t seed)
      : kernel_(kernel),
        case_(c),
        matrix_(in_format(c, kernel.format)),
        uploaded_(spmv::runner::upload_matrix(MemorySpace::kHost, matrix_)),
        executor_(spmv::runner::make_host_executor()),
        x_(spmv::random_vector(static_cast<std::size_t>(c.csr.cols), seed)),
        golden_(spmv::golden_spmv(c.csr, x_)) {}

  [[nodiscard]] const std::vector<float>& x() const { return x_; }
  [[nodiscard]] std::size_t rows() const { return static_cast<std::size_t>(case_.csr.rows); }
  [[nodiscard]] Launch run() const {
    spmv::runner::LaunchArea area(*executor_, *uploaded_, &kernel_, case_.csr.rows, case_.csr.cols);
    area.prepare(std::span<const float>(x_));
    Launch result;
    result.status = area.launch().status;
    const std::vector<std::uint32_t> slot = area.slot();
    result.y = spmv::runner::y_of_slot(slot, case_.csr.rows);
    result.guards = spmv::runner::inspect_y_guards(spmv::runner::guard_before(slot),
                                                   spmv::runner::guard_after(slot, case_.csr.rows));
    result.modified = area.modified_inputs();
    return result;
  }
  [[nodiscard]] spmv::ToleranceVerdict check(const Launch& result) const {
    return spmv::check_result(case_.csr, x_, golden_, result.y);
  }
  [[nodiscard]] const spmv::GoldenResult& golden() const { return golden_; }

 private:
  const spmv_kernel_entry& kernel_;
  const Case& case_;
  spmv::runner::AnyMatrix matrix_;
  std::unique_ptr<spmv::runner::UploadedMatrix> uploaded_;  // compares with matrix_
  std::unique_ptr<spmv::runner::Executor> executor_;
  std::vector<float> x_;
  spmv::GoldenResult golden_;
};

using RunCheck = std::function<void(const KernelRun&)>;

// check() for every kernel of `plugin` on every case with a nonempty row
// (`with_empty` adds the all-empty one), fresh x each time.
void for_each_run(const spmv::Plugin& plugin, const RunCheck& check, bool with_empty = false) {
  const std::uint64_t seed = spmv::test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::uint64_t next_seed = seed;
  for (const Case& c : all_cases(seed)) {
    if (!with_empty && c.csr.nnz() == 0) continue;
    for (const std::string& name : kKernelNames) {
      SCOPED_TRACE(plugin.name() + ", kernel " + name + ", " + c.name);
      check(KernelRun(plugin.require(name), c, ++next_seed));
    }
  }
}

void expect_correct(const KernelRun& k, const Launch& result) {
  EXPECT_EQ(result.status, SPMV_SUCCESS);
  const spmv::ToleranceVerdict verdict = k.check(result);
  EXPECT_TRUE(verdict.passed) << verdict.describe();
  EXPECT_FALSE(result.guards.any()) << "a write outside y";
  EXPECT_TRUE(result.modified.empty()) << "inputs changed: " << result.modified.front();
}

// -- Fakes ------------------------------------------------------------------

struct FakeEntry {
  std::string verdict;
  std::string library;
};

std::map<std::string, FakeEntry> read_manifest() {
  std::ifstream in(SPMV_HOST_FAKES_MANIFEST);
  EXPECT_TRUE(in) << "cannot open " << SPMV_HOST_FAKES_MANIFEST;
  std::map<std::string, FakeEntry> fakes;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string fault;
    FakeEntry entry;
    if (!std::getline(fields, fault, '\t') || !std::getline(fields, entry.verdict, '\t') ||
        !std::getline(fields, entry.library)) {
      ADD_FAILURE() << SPMV_HOST_FAKES_MANIFEST << ":" << number << ": expected fault, verdict, library; found "
                    << line;
      continue;
    }
    fakes[fault] = entry;
  }
  return fakes;
}

spmv::Plugin load_fake(const std::string& fault) {
  const auto fakes = read_manifest();
  const auto found = fakes.find(fault);
  if (found == fakes.end()) throw std::runtime_error("no fake " + fault + " in " SPMV_HOST_FAKES_MANIFEST);
  return spmv::Plugin::load(found->second.library);
}

void for_each_fake_run(const std::string& fault, const RunCheck& check) { for_each_run(load_fake(fault), check); }

// What became of a child process running one launch.
struct ChildOutcome {
  enum class End { kReturned, kExited, kSignaled, kStillRunning } end;
  int code = 0;  // exit status or signal number
};

constexpr int kChildReturned = 3;

ChildOutcome launch_in_child(const KernelRun& k, std::chrono::milliseconds limit) {
  std::fflush(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    const rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);  // the crashing fakes need no core files
    (void)k.run();
    std::_Exit(kChildReturned);
  }
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    if (waitpid(pid, &status, WNOHANG) == pid) {
      if (WIFSIGNALED(status)) return {ChildOutcome::End::kSignaled, WTERMSIG(status)};
      const int code = WEXITSTATUS(status);
      return {code == kChildReturned ? ChildOutcome::End::kReturned : ChildOutcome::End::kExited, code};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
  return {ChildOutcome::End::kStillRunning, 0};
}

// Process-ending faults run in a child, on the small example only.
void for_each_kernel_in_child(const std::string& fault, const std::function<void(const KernelRun&)>& check) {
  const spmv::Plugin plugin = load_fake(fault);
  const Case c = teaching_kit();
  const std::uint64_t seed = spmv::test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  for (const std::string& name : kKernelNames) {
    SCOPED_TRACE("fake " + fault + ", kernel " + name);
    check(KernelRun(plugin.require(name), c, seed));
  }
}

void expect_child_signal(const std::string& fault, int signal_number) {
  for_each_kernel_in_child(fault, [&](const KernelRun& k) {
    const ChildOutcome outcome = launch_in_child(k, std::chrono::seconds(10));
    EXPECT_EQ(outcome.end, ChildOutcome::End::kSignaled);
    EXPECT_EQ(outcome.code, signal_number) << "expected " << strsignal(signal_number);
  });
}

// The faults this file checks; the manifest must list exactly these.
const std::set<std::string> kCheckedFaults = {"correct",
                                              "wrong_element",
                                              "unwritten_row",
                                              "doubled",
                                              "crash_segfault",
                                              "crash_abort",
                                              "exit0",
                                              "hang",
                                              "oob_write",
                                              "modifies_input",
                                              "modifies_x_first_run",
                                              "nondeterministic",
                                              "not_implemented",
                                              "prints_forged_score",
                                              "launch_error"};

TEST(HostReference, EveryKernelPassesTheToleranceCheck) {
  const spmv::Plugin plugin = spmv::Plugin::load(SPMV_HOST_REFERENCE_PLUGIN);
  EXPECT_EQ(plugin.name(), "host-reference");
  EXPECT_EQ(plugin.memory(), SPMV_MEMORY_HOST);
  EXPECT_EQ(plugin.kernels().size(), kKernelNames.size());
  for_each_run(
      plugin, [](const KernelRun& k) { expect_correct(k, k.run()); }, /*with_empty=*/true);
}

TEST(HostFakes, ManifestListsEveryCheckedFakeWithAVerdict) {
  const std::set<std::string> verdicts = {"pass",
                                          "wrong",
                                          "crash",
                                          "timeout",
                                          "out_of_bounds",
                                          "modified_input",
                                          "nondeterministic",
                                          "not_implemented",
                                          "launch_error"};
  const auto fakes = read_manifest();
  std::set<std::string> listed;
  for (const auto& [fault, entry] : fakes) {
    listed.insert(fault);
    EXPECT_TRUE(verdicts.contains(entry.verdict)) << fault << ": unknown verdict " << entry.verdict;
    const spmv::Plugin plugin = spmv::Plugin::load(entry.library);
    EXPECT_EQ(plugin.name(), "fake-" + fault);
    EXPECT_EQ(plugin.memory(), SPMV_MEMORY_HOST);
    for (const std::string& name : kKernelNames) EXPECT_NE(plugin.find(name), nullptr) << fault << " lacks " << name;
  }
  EXPECT_EQ(listed, kCheckedFaults) << "every fake needs a behaviour check here, and every check a fake";
  EXPECT_EQ(fakes.at("correct").verdict, "pass");
}

TEST(HostFakes, CorrectIsCorrect) {
  for_each_fake_run("correct", [](const KernelRun& k) { expect_correct(k, k.run()); });
}

TEST(HostFakes, WrongElementMissesOneTermOfOneRow) {
  for_each_fake_run("wrong_element", [](const KernelRun& k) {
    const Launch result = k.run();
    EXPECT_EQ(result.status, SPMV_SUCCESS);
    const spmv::ToleranceVerdict verdict = k.check(result);
    EXPECT_FALSE(verdict.passed);
    EXPECT_EQ(verdict.bad_rows, 1) << verdict.describe();
    EXPECT_EQ(verdict.cause, LikelyCause::kMissingTerm) << verdict.describe();
  });
}

TEST(HostFakes, UnwrittenRowKeepsThePoisonInOneRow) {
  for_each_fake_run("unwritten_row", [](const KernelRun& k) {
    const Launch result = k.run();
    EXPECT_EQ(result.status, SPMV_SUCCESS);
    const spmv::ToleranceVerdict verdict = k.check(result);
    EXPECT_EQ(verdict.bad_rows, 1) << verdict.describe();
    EXPECT_EQ(verdict.unwritten_rows, 1) << verdict.describe();
    EXPECT_EQ(verdict.cause, LikelyCause::kUnwritten) << verdict.describe();
  });
}

TEST(HostFakes, DoubledGivesTwiceEveryRow) {
  for_each_fake_run("doubled", [](const KernelRun& k) {
    const Launch result = k.run();
    EXPECT_EQ(result.status, SPMV_SUCCESS);
    const spmv::GoldenResult& golden = k.golden();
    for (std::size_t i = 0; i < k.rows(); ++i) {
      // Twice the row, within the rounding of summing it twice in fp32.
      const double allowed = 4 * spmv::gamma_fp32(2 * std::int64_t{golden.row_nnz[i]}) * golden.abs_sum[i];
      ASSERT_LE(std::abs(result.y[i] - 2 * golden.y[i]), allowed)
          << "row " << i << ": expected " << 2 * golden.y[i] << ", got " << result.y[i];
    }
    const spmv::ToleranceVerdict verdict = k.check(result);
    EXPECT_FALSE(verdict.passed);
    EXPECT_EQ(verdict.cause, LikelyCause::kDoubled) << verdict.describe();
  });
}

TEST(HostFakes, CrashSegfaultDiesOfSigsegv) { expect_child_signal("crash_segfault", SIGSEGV); }

TEST(HostFakes, CrashAbortDiesOfSigabrt) { expect_child_signal("crash_abort", SIGABRT); }

TEST(HostFakes, Exit0EndsTheProcessWithStatus0) {
  for_each_kernel_in_child("exit0", [](const KernelRun& k) {
    const ChildOutcome outcome = launch_in_child(k, std::chrono::seconds(10));
    EXPECT_EQ(outcome.end, ChildOutcome::End::kExited) << "the launch returned or the process was killed";
    EXPECT_EQ(outcome.code, 0);
  });
}

TEST(HostFakes, HangNeverReturns) {
  for_each_kernel_in_child("hang", [](const KernelRun& k) {
    EXPECT_EQ(launch_in_child(k, std::chrono::milliseconds(300)).end, ChildOutcome::End::kStillRunning);
  });
}

TEST(HostFakes, OobWriteWritesJustOutsideBothEnds) {
  for_each_fake_run("oob_write", [](const KernelRun& k) {
    const Launch result = k.run();
    EXPECT_EQ(result.status, SPMV_SUCCESS);
    const spmv::ToleranceVerdict verdict = k.check(result);
    EXPECT_TRUE(verdict.passed) << verdict.describe();
    EXPECT_EQ(result.guards.nearest_before, 1) << "y[-1] not written";
    EXPECT_EQ(result.guards.nearest_after, 0) << "y[rows] not written";
    EXPECT_EQ(result.guards.words_before + result.guards.words_after, 2) << "more than y[-1] and y[rows] written";
  });
}

TEST(HostFakes, ModifiesInputChangesXButNotTheResult) {
  for_each_fake_run("modifies_input", [](const KernelRun& k) {
    const Launch result = k.run();
    EXPECT_EQ(result.status, SPMV_SUCCESS);
    const spmv::ToleranceVerdict verdict = k.check(result);
    EXPECT_TRUE(verdict.passed) << verdict.describe();
    EXPECT_EQ(result.modified, std::vector<std::string>{"x"}) << "expected x changed, and x alone";
  });
}

TEST(HostFakes, ModifiesXFirstRunChangesXOnTheFirstCallOfEveryThree) {
  // Its kernel counts its calls for the life of the process: each check
  // runs in a fresh child. Calls 1 and 4 change x, 2 and 3 do not; every
  // result is right.
  for_each_kernel_in_child("modifies_x_first_run", [](const KernelRun& k) {
    const pid_t pid = fork();
    if (pid == 0) {
      bool as_said = true;
      for (int call = 1; call <= 4; ++call) {
        const Launch result = k.run();
        const bool changed = result.modified == std::vector<std::string>{"x"};
        as_said =
            as_said && k.check(result).passed && changed == (call % 3 == 1) && (changed || result.modified.empty());
      }
      std::_Exit(as_said ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "expected x changed by calls 1 and 4 alone, and every result right";
  });
}

TEST(HostFakes, NondeterministicIsRightOnceThenWrong) {
  // A kernel counts its calls for the life of the process: each check runs
  // in a fresh child, whose first call must pass and second fail.
  for_each_kernel_in_child("nondeterministic", [](const KernelRun& k) {
    const pid_t pid = fork();
    if (pid == 0) {
      const bool first_passed = k.check(k.run()).passed;
      const spmv::ToleranceVerdict second = k.check(k.run());
      std::_Exit(first_passed && !second.passed && second.bad_rows == 1 ? 0 : 1);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
        << "expected the first call right and the second wrong in one row";
  });
}

TEST(HostFakes, NotImplementedSaysSoAndLeavesY) {
  for_each_fake_run("not_implemented", [](const KernelRun& k) {
    const Launch result = k.run();
    EXPECT_EQ(result.status, SPMV_NOT_IMPLEMENTED);
    EXPECT_EQ(k.check(result).unwritten_rows, static_cast<std::int64_t>(k.rows()));
  });
}

TEST(HostFakes, LaunchErrorReturnsACudaErrorAndLeavesY) {
  for_each_fake_run("launch_error", [](const KernelRun& k) {
    const Launch result = k.run();
    EXPECT_EQ(result.status, static_cast<spmv_status>(cudaErrorLaunchFailure));
    EXPECT_EQ(k.check(result).unwritten_rows, static_cast<std::int64_t>(k.rows()));
  });
}

TEST(HostFakes, PrintsForgedScoreClaimsFullMarksAndIsWrong) {
  for_each_fake_run("prints_forged_score", [](const KernelRun& k) {
    ::testing::internal::CaptureStdout();
    const Launch result = k.run();
    const std::string printed = ::testing::internal::GetCapturedStdout();
    EXPECT_NE(printed.find("score: 100"), std::string::npos) << printed;
    EXPECT_NE(printed.find("\"score\": 100"), std::string::npos) << printed;
    EXPECT_EQ(result.status, SPMV_SUCCESS);
    EXPECT_TRUE(std::all_of(result.y.begin(), result.y.end(), [](float v) { return v == 0.0f; }));
    EXPECT_FALSE(k.check(result).passed);
  });
}

}  // namespace
