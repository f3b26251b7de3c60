#include "spmv_bench/sliced_ell.hpp"

#include <algorithm>
#include <iomanip>
#include <limits>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>

namespace spmv::bench {
namespace {

index_t slice_count(index_t rows, index_t slice_size) { return rows == 0 ? 0 : (rows - 1) / slice_size + 1; }

// slice * slice_size <= rows - 1 for every existing slice: no overflow.
index_t first_row_of(index_t slice, index_t slice_size) { return slice * slice_size; }

index_t rows_in_slice(index_t rows, index_t slice, index_t slice_size) {
  return std::min(slice_size, rows - first_row_of(slice, slice_size));
}

index_t slice_width(const CsrMatrix& csr, index_t slice, index_t slice_size) {
  const index_t first = first_row_of(slice, slice_size);
  const index_t end = first + rows_in_slice(csr.rows, slice, slice_size);
  index_t width = 0;
  for (index_t row = first; row < end; ++row) width = std::max(width, csr.row_length(row));
  return width;
}

void require_valid_slice_size(index_t slice_size) {
  if (slice_size < 1) {
    throw std::invalid_argument("sliced ELL: slice size must be at least 1, found " + std::to_string(slice_size));
  }
}

}  // namespace

std::size_t sliced_ell_slots(const CsrMatrix& csr, index_t slice_size) {
  require_valid_slice_size(slice_size);
  std::size_t slots = 0;
  for (index_t slice = 0; slice < slice_count(csr.rows, slice_size); ++slice) {
    slots += static_cast<std::size_t>(slice_width(csr, slice, slice_size)) * static_cast<std::size_t>(slice_size);
  }
  return slots;
}

SlicedEllMatrix to_sliced_ell(const CsrMatrix& csr, index_t slice_size, const SlicedEllLimits& limits) {
  const std::size_t slots = sliced_ell_slots(csr, slice_size);
  const std::size_t bytes = slots * (sizeof(index_t) + sizeof(value_t));
  const std::string what = "sliced ELL (slices of " + std::to_string(slice_size) + " rows) would hold " +
                           std::to_string(slots) + " slots for " + std::to_string(csr.nnz()) + " entries";
  if (static_cast<double>(slots) > limits.max_slots_per_entry * static_cast<double>(csr.nnz())) {
    std::ostringstream ratio;
    ratio << std::setprecision(3) << static_cast<double>(slots) / static_cast<double>(csr.nnz()) << " per entry, over "
          << limits.max_slots_per_entry;
    throw ConversionRefused(what + " (" + ratio.str() + "): mostly padding");
  }
  if (bytes > limits.memory.max_bytes) {
    throw ConversionRefused(what + ": " + std::to_string(bytes) + " bytes, over the limit of " +
                            std::to_string(limits.memory.max_bytes));
  }
  // The slice offsets are int32, as cuSPARSE is told (CUSPARSE_INDEX_32I).
  if (slots > static_cast<std::size_t>(std::numeric_limits<index_t>::max())) {
    throw ConversionRefused(what + ", more than 32-bit slice offsets can address");
  }

  SlicedEllMatrix sell;
  sell.rows = csr.rows;
  sell.cols = csr.cols;
  sell.nnz = csr.nnz();
  sell.slice_size = slice_size;
  sell.col_idx.assign(slots, SlicedEllMatrix::kPaddingColumn);
  sell.values.assign(slots, value_t{0});
  const index_t slices = slice_count(csr.rows, slice_size);
  sell.slice_offsets.reserve(static_cast<std::size_t>(slices) + 1);

  for (index_t slice = 0; slice < slices; ++slice) {
    const index_t offset = sell.slice_offsets.back();
    const index_t width = slice_width(csr, slice, slice_size);
    for (index_t local = 0; local < rows_in_slice(csr.rows, slice, slice_size); ++local) {
      const index_t row = first_row_of(slice, slice_size) + local;
      const index_t begin = csr.row_ptr[row];
      for (index_t k = 0; k < csr.row_length(row); ++k) {
        const auto slot = static_cast<std::size_t>(offset) +
                          static_cast<std::size_t>(k) * static_cast<std::size_t>(slice_size) +
                          static_cast<std::size_t>(local);
        sell.col_idx[slot] = csr.col_idx[begin + k];
        sell.values[slot] = csr.values[begin + k];
      }
    }
    sell.slice_offsets.push_back(offset + width * slice_size);
  }
  return sell;
}

SlicedEllBuffers upload(MemorySpace space, const SlicedEllMatrix& a) {
  SlicedEllBuffers b;
  b.rows = a.rows;
  b.cols = a.cols;
  b.nnz = a.nnz;
  b.slice_size = a.slice_size;
  b.slots = a.slots();
  b.slice_offsets = Buffer<index_t>(space, std::span<const index_t>(a.slice_offsets));
  b.col_idx = Buffer<index_t>(space, std::span<const index_t>(a.col_idx));
  b.values = Buffer<value_t>(space, std::span<const value_t>(a.values));
  return b;
}

}  // namespace spmv::bench
