// What is known of a matrix from its row lengths alone: its shape, how its
// row lengths spread, and what the padded formats would cost. spmv-cases
// shows it to a TA before a matrix goes into a case set; spmv-bench prints
// it beside each matrix and models bytes from it. One pass over the CSR row
// pointers; the column indices are never read, so this is cheap even at
// 50M entries.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "spmv/core/formats/csr.hpp"

namespace spmv {

// Row lengths in log2 buckets: bucket 0 holds the empty rows, bucket k >= 1
// the rows of length 2^(k-1) .. 2^k - 1 (1, 2-3, 4-7, ...). The last bucket
// is the one of the longest row, so none is trailing and empty.
struct RowLengthHistogram {
  std::vector<std::int64_t> rows_in_bucket;

  static std::size_t bucket_of(index_t length);
  static index_t bucket_low(std::size_t bucket);
  static index_t bucket_high(std::size_t bucket);
  // "0", "1", "2-3", "4-7", ...
  static std::string bucket_label(std::size_t bucket);
};

struct MatrixStats {
  index_t rows = 0;
  index_t cols = 0;
  std::int64_t nnz = 0;
  index_t min_row_length = 0;
  index_t max_row_length = 0;
  double mean_row_length = 0;
  std::int64_t empty_rows = 0;
  RowLengthHistogram histogram{};

  // ELL pads every row to the longest: rows * max_row_length slots for nnz
  // entries. Empty when there is no entry (no ratio to speak of).
  std::optional<double> ell_padding_ratio{};
  std::size_t ell_bytes = 0;  // what to_ell would allocate (spmv::ell_bytes)

  // HYB with the ELL width of spmv::hyb_default_width: the entries beyond
  // it go to the COO part.
  index_t hyb_width = 0;
  std::int64_t hyb_coo_entries = 0;
  [[nodiscard]] double hyb_coo_share() const;  // of nnz; 0 without entries
};

MatrixStats compute_stats(const CsrMatrix& a);

}  // namespace spmv
