// The library's pseudo-random numbers: splitmix64 (Steele, Lea & Flood,
// "Fast splittable pseudorandom number generators", OOPSLA 2014).
//
// Everything here is integer arithmetic specified in this file, so a seed
// gives the same numbers with every compiler and standard library; the
// <random> distributions are implementation-defined and would not.
#pragma once

#include <cstdint>

namespace spmv::detail {

class RandomStream {
 public:
  explicit RandomStream(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next() {
    state_ += 0x9e3779b97f4a7c15ULL;
    return mix(state_);
  }

  // Uniform in [0, bound) for bound >= 1, without modulo bias: Lemire's
  // multiply-and-reject ("Fast random integer generation in an interval",
  // 2019) on 32-bit draws; 32 bits suffice since bounds are int32 sizes.
  std::uint32_t below(std::uint32_t bound) {
    std::uint64_t product = std::uint64_t{draw32()} * bound;
    auto low = static_cast<std::uint32_t>(product);
    if (low < bound) {
      const std::uint32_t reject_below = static_cast<std::uint32_t>(-bound) % bound;
      while (low < reject_below) {
        product = std::uint64_t{draw32()} * bound;
        low = static_cast<std::uint32_t>(product);
      }
    }
    return static_cast<std::uint32_t>(product >> 32);
  }

  // Uniform in [0, 1): the top 53 bits as a double's mantissa.
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  // Uniform magnitude in [0.25, 1] with a random sign: never zero and never
  // tiny, so a dropped or duplicated term always shows in a product.
  float nonzero_value() {
    const std::uint64_t bits = next();
    const double magnitude = 0.25 + 0.75 * (static_cast<double>(bits >> 11) * 0x1.0p-53);
    const auto value = static_cast<float>(magnitude);
    return (bits & 1U) != 0 ? -value : value;
  }

  // The finaliser of splitmix64; also turns (seed, purpose) pairs into
  // unrelated seeds, so e.g. a matrix's values and its emptied rows do not
  // share a stream.
  static std::uint64_t mix(std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }

  static std::uint64_t derive(std::uint64_t seed, std::uint64_t purpose) {
    return mix(seed ^ mix(purpose + 0x632be59bd9b4e019ULL));
  }

 private:
  std::uint32_t draw32() { return static_cast<std::uint32_t>(next() >> 32); }

  std::uint64_t state_;
};

}  // namespace spmv::detail
