// Facts about a container's layout that validation, conversion and the CPU
// SpMV all derive the same way; defined in formats.cpp.
#pragma once

#include <vector>

#include "spmv/core/formats.hpp"

namespace spmv::detail {

// Entries of each row, from row_ptr.
std::vector<index_t> row_lengths(const CsrMatrix& csr);

// Entries of each sorted row k (not original row): the number of diagonals
// longer than k. Needs jd_ptr non-decreasing with non-increasing diagonal
// lengths, which validate() checks before it relies on this.
std::vector<index_t> jds_sorted_row_lengths(const JdsMatrix& jds);

// Entries of each position p (holding row sell.row_at(p)), counted while
// validating every invariant: throws FormatError like validate(), which
// calls it. One walk of the slots serves both.
std::vector<index_t> sell_position_lengths(const SellMatrix& sell);

}  // namespace spmv::detail
