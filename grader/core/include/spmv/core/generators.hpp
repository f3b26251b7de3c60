// Synthetic matrices, deterministic for a given seed. Values are uniform in
// [-1, -0.25] U [0.25, 1] (never zero) unless stated otherwise, drawn from
// the seed, so two calls with the same arguments give identical matrices.
// Sizes run from a few rows to beyond 50M entries.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "spmv/core/formats.hpp"

namespace spmv::gen {

CsrMatrix stencil_2d_5pt(index_t nx, index_t ny, std::uint64_t seed);
CsrMatrix stencil_3d_7pt(index_t nx, index_t ny, index_t nz, std::uint64_t seed);
CsrMatrix stencil_3d_27pt(index_t nx, index_t ny, index_t nz, std::uint64_t seed);
// Each row gets `per_row` distinct uniformly random columns.
CsrMatrix uniform_random(index_t rows, index_t cols, index_t per_row, std::uint64_t seed);
// Row lengths follow a power law P(len = k) ~ k^-alpha, 1 <= len <= max_row
// (capped at cols); alpha and the cap set the mean. Distinct random columns.
CsrMatrix power_law(index_t rows, index_t cols, double alpha, index_t max_row, std::uint64_t seed);
// Entries where |i - j| <= half_bandwidth.
CsrMatrix banded(index_t n, index_t half_bandwidth, std::uint64_t seed);
// `blocks` dense blocks of block_size x block_size on the diagonal.
CsrMatrix block_diagonal(index_t blocks, index_t block_size, std::uint64_t seed);
// Diagonal plus one dense row and one dense column (row 0 and column 0).
CsrMatrix arrow(index_t n, std::uint64_t seed);
CsrMatrix diagonal(index_t n, std::uint64_t seed);
// Copies `a`, emptying a `fraction` of its rows chosen by `seed`.
CsrMatrix with_empty_rows(const CsrMatrix& a, double fraction, std::uint64_t seed);
// rows x cols with no entries.
CsrMatrix empty(index_t rows, index_t cols);

// A generator spec as written in case manifests and on command lines:
//   "<kind> key=value key=value ...", e.g. "stencil2d nx=2048 ny=2048 seed=7".
// Kinds and keys: stencil2d nx ny | stencil3d7 nx ny nz | stencil3d27 nx ny nz
// | random rows cols per_row | powerlaw rows cols alpha max_row | banded n
// half_bandwidth | blockdiag blocks block_size | arrow n | diagonal n |
// empty rows cols | one (1 x 1) | tall rows cols per_row | wide rows cols
// per_row; every kind takes seed (default 1) and empty_fraction
// (default 0: rows emptied after generation). Rectangular matrices are
// random with rows != cols; tall and wide are random that insists on
// rows > cols and rows < cols.
struct GeneratorSpec {
  std::string kind;
  std::map<std::string, std::string> params;
};

// Throws std::invalid_argument naming the bad kind, key or value.
GeneratorSpec parse_spec(const std::string& text);
CsrMatrix generate(const GeneratorSpec& spec);
CsrMatrix generate(const std::string& spec_text);
// The kinds generate() knows, with their keys, for --help texts.
std::vector<std::string> generator_kinds();

}  // namespace spmv::gen
