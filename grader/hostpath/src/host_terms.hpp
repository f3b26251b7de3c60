// The stored entries of each contract view, walked on the CPU in the order
// the view stores them (padding skipped, permuted rows mapped back through
// row_perm), one header a format in terms/: each defines
// for_each_entry(view, visit(row, column, value)). One walker per format
// serves every host-path plugin: the reference accumulates each entry, the
// faulty fakes alter the walk. rows_of and cols_of give a view's shape: its
// rows and cols, or a format's own overload where the view has none (HYB).
#pragma once

#include <cstdint>

namespace spmv::hostpath {

template <typename View>
requires requires(const View& a) { a.rows; }
std::int32_t rows_of(const View& a) { return a.rows; }
template <typename View>
requires requires(const View& a) { a.cols; }
std::int32_t cols_of(const View& a) { return a.cols; }

}  // namespace spmv::hostpath

#include "terms/coo.hpp"
#include "terms/csr.hpp"
#include "terms/ell.hpp"
#include "terms/hyb.hpp"
#include "terms/jds.hpp"
#include "terms/sell.hpp"
