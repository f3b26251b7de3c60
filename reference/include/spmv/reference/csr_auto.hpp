// The rule by which the "auto" reference kernel picks a CSR kernel from the
// matrix's row lengths, and what it picked for a matrix it has run on.
//
// The rule (thresholds in tuning.hpp), from the mean row length, the
// longest row and the widest row span (last column minus first column):
//  1. skewed rows (the longest row above kAutoSkewFactor times the mean plus
//     kAutoSkewSlack): csr_merge. A fixed mapping of threads to rows waits
//     for the longest row; the merge path splits work evenly whatever the
//     rows look like.
//  2. a mean below kAutoScalarMinMean: row blocks (csr_stream's kernel,
//     with as many rows a block as fit when no row is longer than the
//     longest). With one or two entries a row, per-row costs dominate; a
//     block loads its rows' entries coalesced and stores neighbouring rows
//     together, with no partition kernel and no atomics.
//  3. a mean up to kAutoScalarMaxMean: csr_scalar. A thread per row reads
//     neighbouring rows' entries with neighbouring threads in the same
//     steps, and no lane idles.
//  4. rows whose span stays below kAutoBandSpan times the mean (a dense
//     band: each row reads a contiguous stretch of x): csr_merge, whose
//     coalesced tile loads stream such rows best.
//  5. rows scattered over x (a span above kAutoLocalSpan of the columns)
//     with none longer than kAutoRowBlockMaxRow: row blocks, as in 2.
//  6. otherwise csr_vector, with a group of threads per row (a power of two,
//     2 to 32). When every row spans at most kAutoLocalSpan of the columns
//     (stencils, bands: x gathers hit the same lines), one lane per
//     kAutoEntriesPerLane entries of the mean row: fewer idle lanes. When
//     rows scatter over x, one lane per entry: more gathers in flight.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "spmv/contract/csr.h"

namespace spmv::reference {

struct RowLengthStats {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t nnz = 0;
  std::int64_t max_row = 0;
  std::int64_t max_span = 0;  // largest last column - first column of a row
};

struct CsrAutoChoice {
  enum class Kernel { kScalar, kVector, kMerge, kRowBlocks };
  Kernel kernel = Kernel::kMerge;
  int threads_per_row = 1;  // kVector only
  int rows_per_block = 1;   // kRowBlocks only

  // "csr_scalar", "csr_vector (4 threads/row)", "csr_merge",
  // "csr_stream (75 rows/block)"
  [[nodiscard]] std::string describe() const;
  friend bool operator==(const CsrAutoChoice&, const CsrAutoChoice&) = default;
};

CsrAutoChoice choose_csr_kernel(const RowLengthStats& stats);

// The choice auto made for this view (matched by its pointers and sizes), if
// auto has run on it in this process.
std::optional<CsrAutoChoice> csr_auto_choice_for(const spmv_csr_view& A);

}  // namespace spmv::reference
