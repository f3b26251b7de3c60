// The host side of the "auto" kernel's rule (csr_auto.hpp): no CUDA, so the
// rule is unit-tested without a GPU and shown by spmv-bench.
#include <algorithm>
#include <cstdio>
#include <string>

#include "spmv/reference/csr_auto.hpp"
#include "tuning.hpp"

namespace spmv::reference {

std::string CsrAutoChoice::describe() const {
  switch (kernel) {
    case Kernel::kScalar: return "csr_scalar";
    case Kernel::kVector: {
      // snprintf, not std::to_string: the latter's digit table is a symbol
      // the plugin module would export.
      char text[48];
      if (loads_per_lane == 1) {
        std::snprintf(text, sizeof text, "csr_vector (%d threads/row)", threads_per_row);
      } else {
        std::snprintf(text, sizeof text, "csr_vector (%d threads/row, %d loads/lane)", threads_per_row,
                      loads_per_lane);
      }
      return text;
    }
    case Kernel::kMerge: return "csr_merge";
    case Kernel::kRowBlocks: {
      char text[48];
      std::snprintf(text, sizeof text, "csr_stream (%d rows/block)", rows_per_block);
      return text;
    }
  }
  return "?";
}

namespace {

// Row blocks of as many rows as the stage holds when every row is as long
// as the longest.
CsrAutoChoice row_blocks(const RowLengthStats& stats) {
  const std::int64_t stage = static_cast<std::int64_t>(tuning::kRowBlockThreads) * tuning::kRowBlockItems;
  const std::int64_t fit = stage / std::max<std::int64_t>(stats.max_row, 1);
  return {CsrAutoChoice::Kernel::kRowBlocks, 1,
          static_cast<int>(std::clamp<std::int64_t>(fit, 1, tuning::kRowBlockMaxRows))};
}

}  // namespace

CsrAutoChoice choose_csr_kernel(const RowLengthStats& stats) {
  if (stats.rows <= 0 || stats.nnz <= 0) return {CsrAutoChoice::Kernel::kScalar, 1};
  const double mean = static_cast<double>(stats.nnz) / static_cast<double>(stats.rows);
  if (static_cast<double>(stats.max_row) > tuning::kAutoSkewFactor * mean + tuning::kAutoSkewSlack) {
    return {CsrAutoChoice::Kernel::kMerge, 1};
  }
  if (mean < tuning::kAutoScalarMinMean) return row_blocks(stats);
  if (mean <= tuning::kAutoScalarMaxMean) return {CsrAutoChoice::Kernel::kScalar, 1};
  const bool local = static_cast<double>(stats.max_span) <=
                     tuning::kAutoLocalSpan * static_cast<double>(std::max<std::int64_t>(stats.cols, 1));
  if (!local && stats.max_row <= tuning::kAutoRowBlockMaxRow) return row_blocks(stats);
  int threads = 2;
  while (threads < tuning::kAutoMaxGroup && threads * tuning::kAutoLoadsPerLane < mean) threads *= 2;
  return {CsrAutoChoice::Kernel::kVector, threads, 1, tuning::kAutoLoadsPerLane};
}

}  // namespace spmv::reference
