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

}  // namespace spmv::test
