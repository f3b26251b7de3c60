#include "judging/correctness.hpp"

#include <cstring>

#include "spmv/runner/chain.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <sstream>
#include <vector>

namespace spmv::grade {
namespace {

struct MovingRow {
  std::int64_t row = -1;
  float first = 0, third = 0;
};

const char* cause_token(LikelyCause cause) {
  switch (cause) {
    case LikelyCause::kUnwritten: return "unwritten_rows";
    case LikelyCause::kNonFinite: return "non_finite";
    case LikelyCause::kMissingTerm: return "missing_term";
    case LikelyCause::kExtraTerm: return "extra_term";
    case LikelyCause::kDoubled: return "doubled";
    case LikelyCause::kNone:
    case LikelyCause::kUnknown: break;
  }
  return "wrong_values";
}

std::string run_label(int run) {
  static constexpr std::array<const char*, kRunsPerRow> kLabels{"run 1 (first x)", "run 2 (second x)",
                                                                "run 3 (first x again)"};
  return kLabels[static_cast<std::size_t>(run)];
}

// Results of runs 1 and 3 (same x) may differ by reordering alone, each
// within `allowed` of the golden value, so by 2 * allowed at most. More, or
// a NaN in one of them only, is a moving error.
std::optional<MovingRow> find_moving_row(const PreparedCase& p, const ResultView& results) {
  const auto first = results.y(0);
  const auto third = results.y(2);
  const auto& golden = p.golden[0];
  for (std::size_t i = 0; i < first.size(); ++i) {
    if (std::bit_cast<std::uint32_t>(first[i]) == std::bit_cast<std::uint32_t>(third[i])) continue;
    const double allowed = p.tolerance.c * gamma_fp32(golden.row_nnz[i]) * golden.abs_sum[i] + p.tolerance.atol;
    const double difference = std::fabs(static_cast<double>(first[i]) - static_cast<double>(third[i]));
    if (!(difference <= 2 * allowed)) return MovingRow{static_cast<std::int64_t>(i), first[i], third[i]};
  }
  return std::nullopt;
}

RowSample sample_of(const RowError& error) { return {error.row, error.expected, error.got, error.allowed}; }

// The first finding is the summary (and names the cause); later ones go
// to the detail.
class Findings {
 public:
  void add(const std::string& cause, const std::string& line) {
    if (cause_.empty()) {
      cause_ = cause;
      summary_ = line;
    } else {
      note(line);
    }
  }
  void note(const std::string& line) { detail_ << line << '\n'; }
  void into(Correctness& result) const {
    result.passed = cause_.empty();
    result.cause = cause_;
    result.summary = summary_;
    result.detail = detail_.str();
    if (!result.detail.empty()) result.detail.pop_back();  // the last line's newline
  }

 private:
  std::string cause_;
  std::string summary_;
  std::ostringstream detail_;
};

}  // namespace

runner::GuardDamage inspect_guards(const ResultView& results, int slot) {
  return runner::inspect_y_guards(results.guard_before(slot), results.guard_after(slot));
}

Correctness evaluate_correctness(const PreparedCase& p, const ResultView& results, const std::string& modified,
                                 int runs) {
  runs = std::clamp(runs, 1, kRunsPerRow);
  std::vector<ToleranceVerdict> checks(static_cast<std::size_t>(runs));
  Correctness result;
  for (int run = 0; run < runs; ++run) {
    const int which = x_of_run(run);
    checks[run] = check_result(p.csr, p.x[which], p.golden[which], results.y(run), p.tolerance);
    result.max_ratio = std::max(result.max_ratio, checks[run].max_ratio);
  }

  Findings findings;
  for (int run = 0; run < runs; ++run) {
    const runner::GuardDamage damage = inspect_guards(results, run);
    if (damage.any())
      findings.add("out_of_bounds_write", runner::describe_y_guards(damage, results.rows()) + " in " + run_label(run));
  }
  if (!modified.empty()) {
    findings.add("modified_input", "modified input: the kernel changed " + modified + " (inputs are read-only)");
  }
  const auto failed = std::find_if(checks.begin(), checks.end(), [](const auto& c) { return !c.passed; });
  if (failed != checks.end()) {
    if (const auto moving = runs == kRunsPerRow ? find_moving_row(p, results) : std::nullopt) {
      std::ostringstream line;
      line << "race: runs 1 and 3 used the same x but row " << moving->row << " gave " << moving->first << " then "
           << moving->third << " (a moving error: unsynchronized updates, or state kept between calls)";
      findings.add("race", line.str());
    }
    const int run = static_cast<int>(failed - checks.begin());
    findings.add(cause_token(failed->cause), run_label(run) + ": " + failed->describe());
    if (failed->first) result.first_bad = sample_of(*failed->first);
    if (failed->worst) result.worst_bad = sample_of(*failed->worst);
    for (int other = run + 1; other < runs; ++other) {
      if (!checks[other].passed) {
        findings.note(run_label(other) + ": also wrong (" + std::to_string(checks[other].bad_rows) + " of " +
                      std::to_string(checks[other].rows) + " rows)");
      }
    }
  }
  findings.into(result);
  return result;
}

namespace {

std::string check_against_golden(const PreparedCase& p, const std::vector<float>& x, const ResultView& results,
                                 int slot) {
  const runner::GuardDamage damage = inspect_guards(results, slot);
  if (damage.any()) return runner::describe_y_guards(damage, results.rows());
  // Judged row by row first, the golden product kept nowhere (a timed link
  // of a large case costs the grader about half as much); a wrong one is
  // judged again in full, for what its verdict says.
  if (within_tolerance(p.csr, x, results.y(slot), p.tolerance)) return {};
  const GoldenResult golden = golden_spmv(p.csr, x);
  const ToleranceVerdict verdict = check_result(p.csr, x, golden, results.y(slot), p.tolerance);
  return verdict.passed ? std::string() : verdict.describe();
}

std::span<const std::uint32_t> y_bits(const ResultView& results, int slot) {
  const std::span<const float> y = results.y(slot);
  return {reinterpret_cast<const std::uint32_t*>(y.data()), y.size()};
}

}  // namespace

std::string check_launch_result(const PreparedCase& p, std::uint64_t seed, const ResultView& results, int slot) {
  return check_against_golden(p, x_for_seed(static_cast<std::size_t>(p.csr.cols), seed), results, slot);
}

std::string check_link(const PreparedCase& p, std::uint64_t burst_seed, int link,
                       std::span<const std::uint64_t> digests, const ResultView& results) {
  if (link < 1 || static_cast<std::size_t>(link) > digests.size()) return "no such link in the burst";
  const std::string where = "link " + std::to_string(link) + " of " + std::to_string(digests.size());
  std::span<const std::uint32_t> previous;
  if (link > 1) {
    previous = y_bits(results, runner::kPreviousLinkSlot);
    if (runner::digest_of(previous) != digests[static_cast<std::size_t>(link - 2)]) {
      return where +
             ": the y of the link before it is not the one its burst's reply was made from (work done "
             "after the reply, or a forged reply)";
    }
  }
  if (runner::digest_of(y_bits(results, runner::kLinkSlot)) != digests[static_cast<std::size_t>(link - 1)]) {
    return where +
           ": its y is not the one its burst's reply was made from (work done after the reply, or a "
           "forged reply)";
  }
  const auto cols = static_cast<std::size_t>(p.csr.cols);
  std::vector<float> x(cols);
  for (std::size_t i = 0; i < cols; ++i) {
    const std::uint32_t bits =
        runner::link_x_word(burst_seed, link, previous.empty() ? nullptr : previous.data(), previous.size(), cols, i);
    std::memcpy(&x[i], &bits, sizeof bits);
  }
  const std::string wrong = check_against_golden(p, x, results, runner::kLinkSlot);
  return wrong.empty() ? wrong : where + ": " + wrong;
}

}  // namespace spmv::grade
