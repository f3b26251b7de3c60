// Sliced ELL in the layout cuSPARSE's SpMV (CUSPARSE_SPMV_SELL_ALG1) reads,
// built on the host so the benchmark can time cuSPARSE on it.
//
// Rows are cut into slices of `slice_size` consecutive rows. Slice s is an
// ELL block of slice_size rows by width_s slots (width_s = its longest row),
// stored column-major from slice_offsets[s]: slot k of the slice's local row
// r is element slice_offsets[s] + k * slice_size + r. Padding slots hold
// column -1 and value 0. Every slice, the last one included, spans the full
// slice_size rows, so a slice's width is (offsets[s+1] - offsets[s]) / size.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "spmv/core/convert.hpp"
#include "spmv/core/formats.hpp"
#include "spmv/memory/buffer.hpp"

namespace spmv::bench {

struct SlicedEllMatrix {
  static constexpr index_t kPaddingColumn = -1;

  index_t rows = 0;
  index_t cols = 0;
  index_t nnz = 0;  // real entries, padding excluded
  index_t slice_size = 0;
  std::vector<index_t> slice_offsets{0};  // slices + 1, in elements
  std::vector<index_t> col_idx;           // slice_offsets.back()
  std::vector<value_t> values;            // slice_offsets.back()

  [[nodiscard]] index_t slices() const { return static_cast<index_t>(slice_offsets.size()) - 1; }
  [[nodiscard]] std::size_t slots() const { return col_idx.size(); }
};

// Slots (real + padding) the sliced ELL form of `csr` would hold.
std::size_t sliced_ell_slots(const CsrMatrix& csr, index_t slice_size);

struct SlicedEllLimits {
  ConversionLimits memory;  // on the index + value arrays
  // Most slots per real entry: beyond it, SpMV would mostly stream padding
  // (a slice holding one very long row pads its other rows to that length),
  // and the timing would say more about the padding than about the format.
  double max_slots_per_entry = 4.0;
};

// Throws ConversionRefused, before allocating, when a limit is exceeded, and
// std::invalid_argument for a slice_size < 1.
SlicedEllMatrix to_sliced_ell(const CsrMatrix& csr, index_t slice_size, const SlicedEllLimits& limits = {});

// The matrix in device memory; the arrays stay valid while this lives.
struct SlicedEllBuffers {
  index_t rows = 0;
  index_t cols = 0;
  index_t nnz = 0;
  index_t slice_size = 0;
  std::size_t slots = 0;
  Buffer<index_t> slice_offsets, col_idx;
  Buffer<value_t> values;
};

SlicedEllBuffers upload(MemorySpace space, const SlicedEllMatrix& a);

}  // namespace spmv::bench
