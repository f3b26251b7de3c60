// The matrices every kernel conformance test runs on besides the worked
// examples: edge cases and generated matrices larger than a warp, a block
// and one full grid of the reference kernels, each drawn from a seed.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "spmv/core/formats.hpp"

namespace spmv::test {

struct MatrixCase {
  const char* name;  // a test name: letters, digits, underscores
  std::function<CsrMatrix(std::uint64_t seed)> make;
};

const std::vector<MatrixCase>& matrix_cases();

// A cols-wide matrix whose row r has lengths[r % lengths.size()] distinct
// random columns (each length at most cols), with random values.
CsrMatrix rows_of_lengths(index_t rows, index_t cols, const std::vector<index_t>& lengths, std::uint64_t seed);

}  // namespace spmv::test
