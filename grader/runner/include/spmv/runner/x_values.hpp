// The x vectors of a grading: x[i] is a function of (seed, i) alone, made of
// integer operations only, so the runner's device kernel, the runner's host
// loop and the parent's golden computation produce the same bits.
//
// Values are in [-1, -0.5) U [0.5, 1): never zero (a missing term always
// changes the result) and within a factor of two of each other in
// magnitude. Every launch the parent times gets an x of a seed it never
// used before, so a result cannot be cached.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define SPMV_HOST_DEVICE __host__ __device__
#else
#define SPMV_HOST_DEVICE
#endif

namespace spmv::runner {

SPMV_HOST_DEVICE inline std::uint32_t x_bits(std::uint64_t seed, std::uint64_t i) {
  std::uint64_t z = seed + (i + 1) * 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  z ^= z >> 31;
  const auto sign = static_cast<std::uint32_t>(z >> 63) << 31;
  const auto mantissa = static_cast<std::uint32_t>(z) & 0x7fffffu;
  return sign | 0x3f000000u | mantissa;  // exponent of 0.5
}

}  // namespace spmv::runner
