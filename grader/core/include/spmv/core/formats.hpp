// Host containers of the sparse formats: fp32 values, int32 indices.
//
// Layouts are those of the contract headers (contract/include/spmv/contract),
// so a container's arrays copy verbatim into the device view of its format.
// Each container's validate() checks every invariant and throws FormatError
// naming the first violation; containers built by the conversions in
// convert.hpp are always valid.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace spmv {

using index_t = std::int32_t;
using value_t = float;

// A container breaks one of its format's invariants.
class FormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Row r: entries row_ptr[r] .. row_ptr[r+1]-1, columns strictly increasing.
struct CsrMatrix {
  index_t rows = 0;
  index_t cols = 0;
  std::vector<index_t> row_ptr{0};  // rows + 1
  std::vector<index_t> col_idx;     // nnz
  std::vector<value_t> values;      // nnz

  [[nodiscard]] index_t nnz() const { return static_cast<index_t>(col_idx.size()); }
  [[nodiscard]] index_t row_length(index_t row) const { return row_ptr[row + 1] - row_ptr[row]; }
  void validate() const;
};

// Entries sorted by row, then column; no duplicate (row, column).
struct CooMatrix {
  index_t rows = 0;
  index_t cols = 0;
  std::vector<index_t> row_idx;
  std::vector<index_t> col_idx;
  std::vector<value_t> values;

  [[nodiscard]] index_t nnz() const { return static_cast<index_t>(col_idx.size()); }
  void validate() const;
};

// ELLPACK-R: slot k of row r at k * rows + r (column-major). Slots
// 0 .. row_length[r]-1 hold row r's entries in column order; the others are
// padding with column -1 and value 0.
struct EllMatrix {
  static constexpr index_t kPaddingColumn = -1;

  index_t rows = 0;
  index_t cols = 0;
  index_t width = 0;
  std::vector<index_t> row_length;  // rows
  std::vector<index_t> col_idx;     // rows * width
  std::vector<value_t> values;      // rows * width

  [[nodiscard]] std::size_t slot(index_t row, index_t k) const {
    return static_cast<std::size_t>(k) * static_cast<std::size_t>(rows) + static_cast<std::size_t>(row);
  }
  [[nodiscard]] std::int64_t nnz() const;  // sum of row_length
  void validate() const;
};

// ELL part holds each row's first min(length, ell.width) entries; the COO
// part the rest. Both have the full shape.
struct HybMatrix {
  EllMatrix ell;
  CooMatrix coo;

  [[nodiscard]] index_t rows() const { return ell.rows; }
  [[nodiscard]] index_t cols() const { return ell.cols; }
  void validate() const;
};

// Jagged diagonal storage: rows sorted by decreasing length (stable);
// row_perm[k] = original index of sorted row k; diagonal d is
// entries jd_ptr[d] .. jd_ptr[d+1]-1 and sorted row k's d-th entry is at
// jd_ptr[d] + k. Within a row, entries keep column order.
struct JdsMatrix {
  index_t rows = 0;
  index_t cols = 0;
  std::vector<index_t> row_perm;  // rows
  std::vector<index_t> jd_ptr{0};  // num_diagonals + 1
  std::vector<index_t> col_idx;    // nnz
  std::vector<value_t> values;     // nnz

  [[nodiscard]] index_t nnz() const { return static_cast<index_t>(col_idx.size()); }
  [[nodiscard]] index_t num_diagonals() const { return static_cast<index_t>(jd_ptr.size()) - 1; }
  void validate() const;
};

// SELL-C-sigma (contract/include/spmv/contract/sell.h): rows stably sorted
// by decreasing length within each window of sort_window rows; position p
// holds row row_perm[p] (row_perm empty: the identity, and only then).
// Slice s is an ELL block of slice_height positions, column-major from
// slice_ptr[s]: slot k of local position i at slice_ptr[s] + k * C + i.
// Padding slots hold column -1 and value 0, after each row's entries.
struct SellMatrix {
  static constexpr index_t kPaddingColumn = -1;
  static constexpr index_t kMaxSliceHeight = 1024;

  // The parameters default to SellParams' (convert.hpp), so SellMatrix{} is
  // what to_sell makes of a 0 x 0 matrix.
  index_t rows = 0;
  index_t cols = 0;
  index_t nnz = 0;                         // real entries, padding excluded
  index_t slice_height = 32;               // C
  index_t sort_window = 256;               // sigma
  std::vector<std::int64_t> slice_ptr{0};  // slices + 1
  std::vector<index_t> row_perm;           // rows, or empty for the identity
  std::vector<index_t> col_idx;            // slice_ptr.back()
  std::vector<value_t> values;             // slice_ptr.back()

  [[nodiscard]] index_t slices() const { return static_cast<index_t>(slice_ptr.size()) - 1; }
  [[nodiscard]] index_t row_at(index_t position) const {
    return row_perm.empty() ? position : row_perm[position];
  }
  // Slots per position of slice s (its longest row).
  [[nodiscard]] index_t slice_width(index_t s) const {
    return static_cast<index_t>((slice_ptr[s + 1] - slice_ptr[s]) / slice_height);
  }
  [[nodiscard]] std::size_t slot(index_t s, index_t local_position, index_t k) const {
    return static_cast<std::size_t>(slice_ptr[s]) +
           static_cast<std::size_t>(k) * static_cast<std::size_t>(slice_height) +
           static_cast<std::size_t>(local_position);
  }
  void validate() const;
};

}  // namespace spmv
