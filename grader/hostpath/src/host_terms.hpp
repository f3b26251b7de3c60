// The stored entries of each contract view, walked on the CPU in the order
// the view stores them (padding skipped, permuted rows mapped back through
// row_perm), one header a format in terms/: each defines rows_of, cols_of and
// for_each_entry(view, visit(row, column, value)). One walker per format
// serves every host-path plugin: the reference accumulates each entry, the
// faulty fakes alter the walk.
#pragma once

#include "terms/coo.hpp"
#include "terms/csr.hpp"
#include "terms/ell.hpp"
#include "terms/hyb.hpp"
#include "terms/jds.hpp"
#include "terms/sell.hpp"
