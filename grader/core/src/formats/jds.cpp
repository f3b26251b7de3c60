#include "spmv/core/formats/jds.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "formats/checks.hpp"
#include "formats/conversion.hpp"

namespace spmv {

using namespace detail;  // the shared checks and conversion steps

namespace {

constexpr std::string_view kFormat = "JDS";

void check_jds_diagonals(const JdsMatrix& a) {
  if (a.jd_ptr[0] != 0) fail(kFormat, "jd_ptr[0] = ", a.jd_ptr[0], ", expected 0");
  const std::size_t diagonals = a.jd_ptr.size() - 1;
  index_t previous_length = 0;
  for (std::size_t d = 0; d < diagonals; ++d) {
    const index_t begin = a.jd_ptr[d];
    const index_t end = a.jd_ptr[d + 1];
    if (end < begin) {
      fail(kFormat, "jd_ptr[", d, "] = ", begin, " > jd_ptr[", d + 1, "] = ", end);
    }
    if (end == begin) {
      fail(kFormat, "diagonal ", d, " is empty (jd_ptr[", d, "] = jd_ptr[", d + 1, "] = ", begin,
           "): num_diagonals must equal the longest row's length");
    }
    const index_t length = end - begin;
    if (length > a.rows) {
      fail(kFormat, "diagonal ", d, " has ", length, " entries, more than rows = ", a.rows);
    }
    if (d > 0 && length > previous_length) {
      fail(kFormat, "diagonal ", d, " longer than diagonal ", d - 1, " (", length, " > ", previous_length,
           " entries): rows not sorted by decreasing length");
    }
    previous_length = length;
  }
  if (a.jd_ptr.back() != a.nnz()) {
    fail(kFormat, "jd_ptr[", diagonals, "] = ", a.jd_ptr.back(), ", expected nnz = ", a.nnz(),
         " (the size of col_idx)");
  }
}

void check_jds_permutation(const JdsMatrix& a) {
  check_permutation(kFormat, a.row_perm, a.rows);
  const std::vector<index_t> lengths = detail::jds_sorted_row_lengths(a);
  for (index_t k = 0; k + 1 < a.rows; ++k) {
    if (lengths[k] == lengths[k + 1] && a.row_perm[k] > a.row_perm[k + 1]) {
      fail(kFormat, "sorted rows ", k, " and ", k + 1, " both have ", lengths[k], " entries but hold rows ",
           a.row_perm[k], " and ", a.row_perm[k + 1], ": rows of equal length must keep their original order");
    }
  }
}

void check_jds_columns(const JdsMatrix& a) {
  for (index_t d = 0; d < a.num_diagonals(); ++d) {
    const index_t begin = a.jd_ptr[d];
    for (index_t k = 0; k < a.jd_ptr[d + 1] - begin; ++k) {
      const index_t row = a.row_perm[k];
      const index_t column = a.col_idx[begin + k];
      if (!column_in_range(column, a.cols)) {
        column_range_error(kFormat, row, column, a.cols, message("diagonal ", d, " (entry ", begin + k, ")"));
      }
      if (d == 0) continue;
      const index_t previous = a.col_idx[a.jd_ptr[d - 1] + k];
      if (column <= previous) {
        column_order_error(kFormat, row, previous, column, message("diagonal ", d - 1), message("diagonal ", d));
      }
    }
  }
}

void validate_jds(const JdsMatrix& a) {
  check_shape(kFormat, a.rows, a.cols);
  check_size(kFormat, "row_perm", a.row_perm.size(), static_cast<std::size_t>(a.rows), "rows");
  if (a.jd_ptr.empty()) fail(kFormat, "jd_ptr is empty, expected num_diagonals + 1 entries");
  check_size(kFormat, "values", a.values.size(), a.col_idx.size(), "the size of col_idx");
  check_entry_count(kFormat, a.col_idx.size());
  check_jds_diagonals(a);
  check_jds_permutation(a);
  check_jds_columns(a);
}

}  // namespace

void JdsMatrix::validate() const { validate_jds(*this); }

std::vector<index_t> detail::jds_sorted_row_lengths(const JdsMatrix& jds) {
  std::vector<index_t> lengths(static_cast<std::size_t>(jds.rows));
  index_t longer = jds.num_diagonals();
  for (index_t k = 0; k < jds.rows; ++k) {
    while (longer > 0 && jds.jd_ptr[longer] - jds.jd_ptr[longer - 1] <= k) --longer;
    lengths[k] = longer;
  }
  return lengths;
}

JdsMatrix to_jds(const CsrMatrix& csr) {
  csr.validate();
  const std::vector<index_t> lengths = detail::row_lengths(csr);
  const std::vector<index_t> longer = rows_longer_than(lengths);
  const index_t diagonals = static_cast<index_t>(longer.size()) - 1;
  JdsMatrix jds;
  jds.rows = csr.rows;
  jds.cols = csr.cols;
  // Counting sort by decreasing length: rows of length L take the positions
  // after all longer rows, and visiting rows in index order keeps ties stable.
  jds.row_perm.resize(lengths.size());
  std::vector<index_t> next_position = longer;
  for (index_t r = 0; r < csr.rows; ++r) jds.row_perm[next_position[lengths[r]]++] = r;
  jds.jd_ptr.assign(static_cast<std::size_t>(diagonals) + 1, 0);
  for (index_t d = 0; d < diagonals; ++d) jds.jd_ptr[d + 1] = jds.jd_ptr[d] + longer[d];
  jds.col_idx.resize(csr.col_idx.size());
  jds.values.resize(csr.values.size());
  std::vector<index_t> sorted_lengths(lengths.size());
  for (index_t k = 0; k < csr.rows; ++k) sorted_lengths[k] = lengths[jds.row_perm[k]];
  visit_blocked(sorted_lengths, [&](index_t k, index_t d) {
    copy_entry(csr, csr.row_ptr[jds.row_perm[k]] + d, jds, jds.jd_ptr[d] + k);
  });
  return jds;
}

CsrMatrix to_csr(const JdsMatrix& jds) {
  jds.validate();
  const std::vector<index_t> sorted_lengths = detail::jds_sorted_row_lengths(jds);
  std::vector<index_t> lengths(static_cast<std::size_t>(jds.rows));
  for (index_t k = 0; k < jds.rows; ++k) lengths[jds.row_perm[k]] = sorted_lengths[k];
  CsrMatrix csr = csr_with_lengths(jds.rows, jds.cols, lengths);
  visit_blocked(sorted_lengths, [&](index_t k, index_t d) {
    copy_entry(jds, jds.jd_ptr[d] + k, csr, csr.row_ptr[jds.row_perm[k]] + d);
  });
  return csr;
}

}  // namespace spmv
