// Sequential y = A * x for every format, each walking its own format's arrays
// (padding, permutation and diagonals included): the second oracle, proving
// that each layout means what the contract says. Accumulates in fp64 and
// rounds each row's sum to fp32 once.
#pragma once

#include <span>
#include <vector>

#include "spmv/core/formats.hpp"

namespace spmv {

std::vector<float> cpu_spmv(const CsrMatrix& a, std::span<const float> x);
std::vector<float> cpu_spmv(const CooMatrix& a, std::span<const float> x);
std::vector<float> cpu_spmv(const EllMatrix& a, std::span<const float> x);
std::vector<float> cpu_spmv(const HybMatrix& a, std::span<const float> x);
std::vector<float> cpu_spmv(const JdsMatrix& a, std::span<const float> x);
std::vector<float> cpu_spmv(const SellMatrix& a, std::span<const float> x);

}  // namespace spmv
