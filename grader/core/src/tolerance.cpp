#include "spmv/core/tolerance.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

namespace spmv {
namespace {

constexpr double kUnitRoundoffFp32 = 1.0 / 16777216.0;  // 2^-24

// Guessing the cause reads every entry of a bad row; looking at the first
// bad rows only keeps a check of a badly broken result at O(rows) plus a
// bounded amount of row scanning, and 64 rows are plenty to see a pattern.
constexpr std::int64_t kRowsExaminedForCause = 64;

// The causes a single bad row can be consistent with, as bits of a mask.
enum CauseBit : unsigned {
  kBitUnwritten = 1U << 0,
  kBitNonFinite = 1U << 1,
  kBitMissing = 1U << 2,
  kBitExtra = 1U << 3,
  kBitDoubled = 1U << 4,
};

struct CauseCandidate {
  LikelyCause cause;
  unsigned bit;  // 0: rows consistent with no other cause
};

// Ties between causes are settled by this order: facts first (poison seen,
// non-finite value), then "doubled" before the single-term explanations. A
// doubled row of n terms passes for a missing or extra term whenever any of
// its n terms happens to equal -y or +y, while a single wrong term passes
// for a doubled row only if that one term does: the coincidence is n times
// likelier in the first case. (A one-entry row counted twice is both.)
constexpr std::array<CauseCandidate, 6> kCauseOrder{{
    {LikelyCause::kUnwritten, kBitUnwritten},
    {LikelyCause::kNonFinite, kBitNonFinite},
    {LikelyCause::kDoubled, kBitDoubled},
    {LikelyCause::kMissingTerm, kBitMissing},
    {LikelyCause::kExtraTerm, kBitExtra},
    {LikelyCause::kUnknown, 0},
}};

void require_size(std::size_t found, std::size_t expected, const char* what) {
  if (found != expected) {
    throw std::invalid_argument(std::string("check_result: ") + what + " has " + std::to_string(found) +
                                " values, expected " + std::to_string(expected));
  }
}

void require_consistent_sizes(const CsrMatrix& a, std::span<const float> x, std::span<const float> y) {
  const auto rows = static_cast<std::size_t>(a.rows);
  require_size(x.size(), static_cast<std::size_t>(a.cols), "x");
  require_size(y.size(), rows, "y");
  require_size(a.row_ptr.size(), rows + 1, "row_ptr");
}

void require_consistent_sizes(const CsrMatrix& a, std::span<const float> x, const GoldenResult& golden,
                              std::span<const float> y) {
  require_consistent_sizes(a, x, y);
  const auto rows = static_cast<std::size_t>(a.rows);
  require_size(golden.y.size(), rows, "golden.y");
  require_size(golden.abs_sum.size(), rows, "golden.abs_sum");
  require_size(golden.row_nnz.size(), rows, "golden.row_nnz");
}

// Both NaN, or the same infinity.
bool same_nonfinite(double expected, double got) {
  return (std::isnan(expected) && std::isnan(got)) || (std::isinf(expected) && expected == got);
}

// A row whose exact result is not finite (only a matrix read with
// allow_nonfinite has such rows) is right with the same NaN or infinity:
// they come out of any summation order alike.
bool matches_nonfinite(const RowError& error, bool poisoned) {
  return !std::isfinite(error.expected) && !poisoned && same_nonfinite(error.expected, error.got);
}

// Any other row is right within its bound. Inf must fail even where the
// bound itself is infinite, and so must a finite value where the exact
// result is not.
bool within_bound(const RowError& error) {
  return std::isfinite(error.got) && std::isfinite(error.expected) &&
         std::fabs(error.got - error.expected) <= error.allowed;
}

double allowed_error(index_t row_nnz, double abs_sum, const ToleranceOptions& options) {
  if (row_nnz == 0) {
    return 0;  // nothing to round and nothing to flush: exactly 0 expected
  }
  const double gamma = gamma_fp32(row_nnz);
  if (std::isinf(gamma)) {
    return gamma;  // the worst-case bound says nothing for rows this long
  }
  return options.c * gamma * abs_sum + options.atol;
}

bool within(double value, double target, double tolerance) { return std::fabs(value - target) <= tolerance; }

// The column of the row's first term t with error ~= sign * t, or -1.
index_t matching_term_column(const CsrMatrix& a, std::span<const float> x, index_t row, double error, double sign,
                             double tolerance) {
  for (index_t k = a.row_ptr[row]; k < a.row_ptr[row + 1]; ++k) {
    const double term = static_cast<double>(a.values[k]) * static_cast<double>(x[a.col_idx[k]]);
    if (term != 0 && within(error, sign * term, tolerance)) {
      return a.col_idx[k];
    }
  }
  return -1;
}

struct RowDiagnosis {
  unsigned causes = 0;
  index_t missing_column = -1;
  index_t extra_column = -1;
};

// Which bugs would explain this bad row. The wrong result was itself summed
// in fp32, so each explanation is matched within the row's own bound (twice
// it for a doubled row, whose rounding error doubles too).
RowDiagnosis diagnose_row(const CsrMatrix& a, std::span<const float> x, const RowError& error, bool poisoned) {
  RowDiagnosis diagnosis;
  if (poisoned) {
    diagnosis.causes = kBitUnwritten;
    return diagnosis;
  }
  if (!std::isfinite(error.got)) {
    diagnosis.causes = kBitNonFinite;
    return diagnosis;
  }
  const double difference = error.got - error.expected;
  diagnosis.missing_column = matching_term_column(a, x, error.row, difference, -1.0, error.allowed);
  diagnosis.extra_column = matching_term_column(a, x, error.row, difference, +1.0, error.allowed);
  if (diagnosis.missing_column >= 0) {
    diagnosis.causes |= kBitMissing;
  }
  if (diagnosis.extra_column >= 0) {
    diagnosis.causes |= kBitExtra;
  }
  if (error.expected != 0 && within(error.got, 2 * error.expected, 2 * error.allowed)) {
    diagnosis.causes |= kBitDoubled;
  }
  return diagnosis;
}

// Tallies the causes of the examined bad rows and remembers, per cause, the
// first row showing it, so the verdict can name an example.
class CauseTally {
 public:
  void add(const RowError& error, const RowDiagnosis& diagnosis) {
    for (std::size_t i = 0; i < kCauseOrder.size(); ++i) {
      const unsigned bit = kCauseOrder[i].bit;
      const bool consistent = bit == 0 ? diagnosis.causes == 0 : (diagnosis.causes & bit) != 0;
      if (!consistent) {
        continue;
      }
      if (count_[i]++ == 0) {
        example_row_[i] = error.row;
        example_column_[i] = bit == kBitMissing ? diagnosis.missing_column
                             : bit == kBitExtra ? diagnosis.extra_column
                                                : -1;
      }
    }
  }

  // The cause consistent with most examined rows: one bug usually breaks
  // many rows the same way, while a coincidental match (a term that happens
  // to equal some row's error) rarely repeats.
  void decide(ToleranceVerdict& verdict) const {
    std::size_t best = 0;
    for (std::size_t i = 1; i < kCauseOrder.size(); ++i) {
      if (count_[i] > count_[best]) {
        best = i;
      }
    }
    verdict.cause = kCauseOrder[best].cause;
    verdict.cause_row = example_row_[best];
    verdict.cause_column = example_column_[best];
  }

 private:
  std::array<std::int64_t, kCauseOrder.size()> count_{};
  std::array<index_t, kCauseOrder.size()> example_row_{};
  std::array<index_t, kCauseOrder.size()> example_column_{};
};

std::string format_number(double value) {
  if (std::isnan(value)) {
    return "NaN";
  }
  std::array<char, 32> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.9g", value);
  return buffer.data();
}

std::string format_ratio(double ratio) {
  if (std::isinf(ratio)) {
    return "inf";
  }
  std::array<char, 32> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.3g", ratio);
  return buffer.data();
}

std::string describe_row(const RowError& error) {
  std::string text = "row " + std::to_string(error.row) + ": expected " + format_number(error.expected) + ", got " +
                     format_number(error.got);
  if (error.allowed == 0) {
    return text + ", allowed error 0 (the row is empty, so y must be exactly 0)";
  }
  text += ", allowed error " + format_ratio(error.allowed);
  if (std::isfinite(error.got)) {
    text += " (off by " + format_ratio(error.ratio()) + " times that)";
  }
  return text;
}

std::string describe_cause(const ToleranceVerdict& verdict) {
  const std::string row = "row " + std::to_string(verdict.cause_row);
  const std::string column = "column " + std::to_string(verdict.cause_column);
  switch (verdict.cause) {
    case LikelyCause::kNone: return "none";
    case LikelyCause::kUnwritten:
      return row +
             " was never written: y still holds the NaN the grader filled it with. Every row, "
             "empty "
             "rows too, must be written.";
    case LikelyCause::kNonFinite:
      return row +
             " is NaN or infinite although A and x are finite: y was probably accumulated into "
             "(+=) "
             "without being set first (the grader fills y with NaN before the launch), or a value "
             "was read from outside the arrays.";
    case LikelyCause::kMissingTerm:
      return row + " lacks exactly one term, the entry in " + column +
             ": a loop stops one entry early, or an entry at the boundary between two threads' "
             "shares of the row is skipped.";
    case LikelyCause::kExtraTerm:
      return row + " counts one term twice, the entry in " + column +
             ": two threads' shares of the row overlap, or the entry is handled by two parts of "
             "the format (e.g. both ELL and COO).";
    case LikelyCause::kDoubled:
      return row +
             " is twice the expected value: the whole row was added into y twice (e.g. two threads "
             "or two launches each adding the full row).";
    case LikelyCause::kUnknown:
      return "the errors match no single missing, repeated or doubled term. Check the indexing "
             "against the format's layout (row pointers, column-major ELL slots, a sorted format's row "
             "permutation) and that each row's sum lands in y at its original row index.";
  }
  return "unknown";
}

}  // namespace

double gamma_fp32(std::int64_t n) {
  if (n <= 0) {
    return 0;
  }
  const double nu = static_cast<double>(n) * kUnitRoundoffFp32;
  if (nu >= 1) {
    return std::numeric_limits<double>::infinity();
  }
  return nu / (1 - nu);
}

const char* to_string(LikelyCause cause) {
  switch (cause) {
    case LikelyCause::kNone: return "none";
    case LikelyCause::kUnwritten: return "unwritten rows";
    case LikelyCause::kNonFinite: return "non-finite values";
    case LikelyCause::kMissingTerm: return "missing term";
    case LikelyCause::kExtraTerm: return "extra term";
    case LikelyCause::kDoubled: return "doubled rows";
    case LikelyCause::kUnknown: return "unknown";
  }
  return "invalid";
}

double RowError::ratio() const {
  const double error = std::fabs(got - expected);
  if (std::isnan(error)) {
    return std::numeric_limits<double>::infinity();
  }
  if (allowed == 0) {
    return error == 0 ? 0 : std::numeric_limits<double>::infinity();
  }
  if (std::isinf(allowed)) {
    return std::isinf(error) ? std::numeric_limits<double>::infinity() : 0;
  }
  return error / allowed;
}

ToleranceVerdict check_result(const CsrMatrix& a, std::span<const float> x, const GoldenResult& golden,
                              std::span<const float> y, const ToleranceOptions& options, std::uint32_t poison_bits) {
  require_consistent_sizes(a, x, golden, y);
  ToleranceVerdict verdict;
  verdict.rows = a.rows;
  CauseTally tally;
  for (index_t row = 0; row < a.rows; ++row) {
    const auto i = static_cast<std::size_t>(row);
    const RowError error{row, golden.y[i], static_cast<double>(y[i]),
                         allowed_error(golden.row_nnz[i], golden.abs_sum[i], options)};
    const bool poisoned = std::bit_cast<std::uint32_t>(y[i]) == poison_bits;
    verdict.unwritten_rows += poisoned ? 1 : 0;
    if (matches_nonfinite(error, poisoned)) {
      continue;
    }
    const double ratio = error.ratio();
    if (ratio > verdict.max_ratio) {
      verdict.max_ratio = ratio;
    }
    if (within_bound(error)) {
      continue;
    }
    if (verdict.bad_rows < kRowsExaminedForCause) {
      tally.add(error, diagnose_row(a, x, error, poisoned));
    }
    ++verdict.bad_rows;
    if (!verdict.first) {
      verdict.first = error;
    }
    if (!verdict.worst || ratio > verdict.worst->ratio()) {
      verdict.worst = error;
    }
  }
  verdict.passed = verdict.bad_rows == 0;
  if (!verdict.passed) {
    tally.decide(verdict);
  }
  return verdict;
}

bool within_tolerance(const CsrMatrix& a, std::span<const float> x, std::span<const float> y,
                      const ToleranceOptions& options, std::uint32_t poison_bits) {
  require_consistent_sizes(a, x, y);
  for (index_t row = 0; row < a.rows; ++row) {
    const auto i = static_cast<std::size_t>(row);
    const GoldenRow golden = golden_row(a, x, row);
    const RowError error{row, golden.y, static_cast<double>(y[i]), allowed_error(golden.nnz, golden.abs_sum, options)};
    if (!matches_nonfinite(error, std::bit_cast<std::uint32_t>(y[i]) == poison_bits) && !within_bound(error)) {
      return false;
    }
  }
  return true;
}

std::string ToleranceVerdict::describe() const {
  if (passed) {
    return "All " + std::to_string(rows) + " rows within tolerance; the largest error is " + format_ratio(max_ratio) +
           " times the allowed one.";
  }
  std::string text = std::to_string(bad_rows) + " of " + std::to_string(rows) + " rows wrong";
  if (unwritten_rows > 0) {
    text += " (" + std::to_string(unwritten_rows) + " never written)";
  }
  text += ". First wrong " + describe_row(*first) + ".";
  if (worst && worst->row != first->row) {
    text += " Worst " + describe_row(*worst) + ".";
  }
  text += " Likely cause: " + describe_cause(*this);
  return text;
}

}  // namespace spmv
