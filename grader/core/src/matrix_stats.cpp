#include "spmv/core/matrix_stats.hpp"

#include <algorithm>
#include <bit>

#include "spmv/core/convert.hpp"

namespace spmv {

std::size_t RowLengthHistogram::bucket_of(index_t length) {
  return length <= 0 ? 0 : static_cast<std::size_t>(std::bit_width(static_cast<std::uint32_t>(length)));
}

index_t RowLengthHistogram::bucket_low(std::size_t bucket) {
  return bucket == 0 ? 0 : static_cast<index_t>(std::uint32_t{1} << (bucket - 1));
}

index_t RowLengthHistogram::bucket_high(std::size_t bucket) {
  // A length fits in 31 bits, so the top bucket ends at exactly INT32_MAX.
  return bucket == 0 ? 0 : static_cast<index_t>((std::uint64_t{1} << bucket) - 1);
}

std::string RowLengthHistogram::bucket_label(std::size_t bucket) {
  const index_t low = bucket_low(bucket);
  const index_t high = bucket_high(bucket);
  return low == high ? std::to_string(low) : std::to_string(low) + "-" + std::to_string(high);
}

double MatrixStats::hyb_coo_share() const {
  return nnz == 0 ? 0.0 : static_cast<double>(hyb_coo_entries) / static_cast<double>(nnz);
}

MatrixStats compute_stats(const CsrMatrix& a) {
  MatrixStats s;
  s.rows = a.rows;
  s.cols = a.cols;
  s.nnz = a.nnz();
  s.min_row_length = a.rows == 0 ? 0 : a.row_length(0);
  for (index_t row = 0; row < a.rows; ++row) {
    const index_t length = a.row_length(row);
    s.min_row_length = std::min(s.min_row_length, length);
    s.max_row_length = std::max(s.max_row_length, length);
    if (length == 0) ++s.empty_rows;
    const std::size_t bucket = RowLengthHistogram::bucket_of(length);
    auto& buckets = s.histogram.rows_in_bucket;
    if (buckets.size() <= bucket) buckets.resize(bucket + 1, 0);
    ++buckets[bucket];
  }
  s.mean_row_length = a.rows == 0 ? 0.0 : static_cast<double>(s.nnz) / a.rows;
  if (s.nnz > 0) {
    s.ell_padding_ratio = static_cast<double>(a.rows) * s.max_row_length / static_cast<double>(s.nnz);
  }
  s.ell_bytes = ell_bytes(a.rows, s.max_row_length);
  s.hyb_width = hyb_default_width(a);
  for (index_t row = 0; row < a.rows; ++row) {
    s.hyb_coo_entries += std::max(0, a.row_length(row) - s.hyb_width);
  }
  return s;
}

}  // namespace spmv
