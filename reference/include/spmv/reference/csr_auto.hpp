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
//  4. rows scattered over x (a span above kAutoLocalSpan of the columns)
//     with none longer than kAutoRowBlockMaxRow: row blocks, as in 2: the
//     random gathers of x are the cost, and a block has its whole stage of
//     them in flight.
//  5. otherwise (longer rows: stencils with many points, bands, long
//     rows) csr_vector's kernel with kAutoLoadsPerLane loads in flight per
//     lane and the smallest group (a power of two, 2 to kAutoMaxGroup) whose
//     lanes load the mean row in one step.
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
  int loads_per_lane = 1;   // kVector only: 1 is csr_vector's own kernel

  // "csr_scalar", "csr_vector (8 threads/row, 4 loads/lane)", "csr_merge",
  // "csr_stream (75 rows/block)"
  [[nodiscard]] std::string describe() const;
  friend bool operator==(const CsrAutoChoice&, const CsrAutoChoice&) = default;
};

CsrAutoChoice choose_csr_kernel(const RowLengthStats& stats);

// The choice auto made for this view (matched by its pointers and sizes), if
// auto has run on it in this process.
std::optional<CsrAutoChoice> csr_auto_choice_for(const spmv_csr_view& A);

}  // namespace spmv::reference
