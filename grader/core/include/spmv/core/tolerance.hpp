// Checking an fp32 SpMV result against the golden fp64 one.
//
// Row i passes iff |y_i - golden_i| <= c * gamma(n_i) * sum_j |a_ij x_j| + atol
// where gamma(n) = n u / (1 - n u), u = 2^-24 (fp32 unit roundoff) and n_i
// is the number of entries of row i. This is the worst-case bound of an
// n-term fp32 dot product summed in any order, so it accepts atomics,
// reductions and reordering, yet a missing, extra or doubled term exceeds it
// except in degenerate cases. NaN or Inf in y fails, except in a row whose
// golden result is itself NaN or infinite (only a matrix read with
// allow_nonfinite has one): y must then hold NaN (not the poison pattern)
// for NaN, the same infinity for an infinity.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "spmv/core/formats.hpp"
#include "spmv/core/golden.hpp"

namespace spmv {

// The NaN pattern the grader and tests fill y with before a launch.
inline constexpr std::uint32_t kPoisonBits = 0x7fc0dead;

struct ToleranceOptions {
  // Safety factor on the worst-case bound. The bound already holds for any
  // summation order, so 2 leaves room for one extra rounding (e.g. a partial
  // sum stored in fp32) without admitting a wrong term.
  double c = 2.0;
  // Absolute slack: absorbs subnormal products flushed to zero (each loses
  // < 2^-126 ~ 1.2e-38) for rows of up to ~10^8 entries, and nothing else.
  // An empty row has no products to flush: it must be exactly 0.
  double atol = 1e-30;
};

double gamma_fp32(std::int64_t n);

enum class LikelyCause {
  kNone,         // passed
  kUnwritten,    // NaN poison survived in some rows: rows never written
  kNonFinite,    // NaN/Inf that is not the poison pattern
  kMissingTerm,  // error equals minus one of the row's terms
  kExtraTerm,    // error equals one of the row's terms counted again
  kDoubled,      // y is twice golden: accumulated twice
  kUnknown,
};

const char* to_string(LikelyCause cause);

struct RowError {
  index_t row = -1;
  double expected = 0;                 // golden
  double got = 0;                      // y as float, widened
  double allowed = 0;                  // the bound for this row
  [[nodiscard]] double ratio() const;  // |got - expected| / allowed (inf for NaN)
};

struct ToleranceVerdict {
  bool passed = true;
  std::int64_t bad_rows = 0;
  std::int64_t unwritten_rows = 0;  // rows still holding the NaN poison
  std::optional<RowError> first;    // lowest bad row index
  std::optional<RowError> worst;    // largest ratio
  double max_ratio = 0;             // over all rows, 0 if y == golden exactly
  LikelyCause cause = LikelyCause::kNone;
  std::int64_t rows = 0;  // rows checked
  // The first bad row consistent with `cause` and, for a missing or extra
  // term, that term's column (-1 otherwise): what describe() points to.
  index_t cause_row = -1;
  index_t cause_column = -1;
  // One paragraph for reports, e.g. "3 of 1000 rows wrong; first row 7:
  // expected 1.5, got 2.5, allowed 1.2e-7; likely cause: ...".
  [[nodiscard]] std::string describe() const;
};

// `poison_bits`: the exact bit pattern y was filled with before the kernel
// ran (a NaN), used to tell unwritten rows from computed NaNs.
ToleranceVerdict check_result(const CsrMatrix& a, std::span<const float> x, const GoldenResult& golden,
                              std::span<const float> y, const ToleranceOptions& options = {},
                              std::uint32_t poison_bits = kPoisonBits);

// Whether check_result would pass y, found row by row with nothing of the
// golden result kept: no allocation and one pass, about half check_result's
// cost with golden_spmv's, for a check that wants the verdict's details only
// when it fails (a timed link's). Throws std::invalid_argument on sizes
// that do not match, as check_result does.
bool within_tolerance(const CsrMatrix& a, std::span<const float> x, std::span<const float> y,
                      const ToleranceOptions& options = {}, std::uint32_t poison_bits = kPoisonBits);

}  // namespace spmv
