// Fast path for the decimal values of Matrix Market files. Private to
// spmv_core.
//
// std::from_chars is exact but costs a few hundred instructions per value,
// most of a coordinate line's parse. Nearly every value in practice is a
// plain decimal of at most 19 significant digits and a small exponent, and
// for those one IEEE multiplication or division of two exact doubles gives
// the correctly rounded double (Clinger's fast path). Rounding that double
// to float is rounding twice, which is wrong only where the double lands
// exactly on a point halfway between two floats; those values, and every
// other form (inf, nan, long mantissas, large exponents, subnormals), are
// left to from_chars.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>

#include "spmv/core/formats.hpp"

namespace spmv::mm {

inline bool is_decimal_digit(char c) { return c >= '0' && c <= '9'; }

// Eight ASCII digits at `p` as one number: most files print nine or more
// significant digits, so converting eight at a time in a register beats the
// byte loop.
inline bool take_eight_digits(const char*& p, const char* end, std::uint64_t& mantissa) {
  if (end - p < 8) return false;
  std::uint64_t chunk = 0;
  std::memcpy(&chunk, p, sizeof chunk);  // little-endian: the first digit in the lowest byte
  // Each byte is a digit when its high nibble is 3 and adding 6 does not
  // carry into the high nibble (low nibble at most 9).
  constexpr std::uint64_t kHighNibbles = 0xF0F0F0F0F0F0F0F0ULL;
  const std::uint64_t high = chunk & kHighNibbles;
  const std::uint64_t carried = ((chunk + 0x0606060606060606ULL) & kHighNibbles) >> 4;
  if ((high | carried) != 0x3333333333333333ULL) return false;
  chunk -= 0x3030303030303030ULL;
  // Neighbouring digits pair up into 2-digit numbers in 16-bit lanes, then
  // 4-digit numbers in 32-bit lanes, then the two halves join.
  chunk = ((chunk * 10) + (chunk >> 8)) & 0x00FF00FF00FF00FFULL;
  chunk = ((chunk * 100) + (chunk >> 16)) & 0x0000FFFF0000FFFFULL;
  chunk = (chunk & 0xFFFFFFFFULL) * 10000 + (chunk >> 32);
  mantissa = mantissa * 100000000ULL + chunk;
  p += 8;
  return true;
}

// Appends a run of digits to `mantissa` (it wraps past 19 digits; callers
// bound the count) and returns how many there were.
inline std::ptrdiff_t take_digits(const char*& p, const char* end, std::uint64_t& mantissa) {
  const char* first = p;
  while (take_eight_digits(p, end, mantissa)) {
  }
  for (; p != end && is_decimal_digit(*p); ++p) {
    mantissa = mantissa * 10 + static_cast<std::uint64_t>(*p - '0');
  }
  return p - first;
}

// 10^22 is the largest power of ten a double holds exactly.
inline constexpr int kMaxExactPowerOfTen = 22;
inline constexpr double kExactPowersOfTen[kMaxExactPowerOfTen + 1] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

// Reads [+-]digits[.digits][(e|E)[+-]digits] from `first`. On success sets
// `value` and `last` (the first character not read) and returns true;
// returns false when the text is anything else or the fast path cannot
// guarantee the correctly rounded float.
inline bool parse_plain_decimal(const char* first, const char* end, const char*& last, value_t& value) {
  constexpr std::ptrdiff_t kMaxDigits = 19;  // any 19-digit mantissa fits 64 bits
  constexpr std::uint64_t kMaxExactMantissa = std::uint64_t{1} << 53;

  const char* p = first;
  const bool negative = p != end && *p == '-';
  if (p != end && (*p == '-' || *p == '+')) ++p;
  std::uint64_t mantissa = 0;
  std::ptrdiff_t digits = take_digits(p, end, mantissa);
  std::ptrdiff_t exponent = 0;
  if (p != end && *p == '.') {
    ++p;
    exponent = -take_digits(p, end, mantissa);
    digits -= exponent;
  }
  if (digits == 0 || digits > kMaxDigits) return false;
  if (p != end && (*p == 'e' || *p == 'E')) {
    ++p;
    const bool negative_exponent = p != end && *p == '-';
    if (p != end && (*p == '-' || *p == '+')) ++p;
    if (p == end || !is_decimal_digit(*p)) return false;
    std::ptrdiff_t written = 0;
    for (; p != end && is_decimal_digit(*p); ++p) {
      // Capped far past any exact case, so that it cannot overflow.
      if (written < 10000) written = written * 10 + (*p - '0');
    }
    exponent += negative_exponent ? -written : written;
  }
  if (mantissa > kMaxExactMantissa || exponent < -kMaxExactPowerOfTen || exponent > kMaxExactPowerOfTen) {
    return false;
  }
  const double exact = static_cast<double>(mantissa);
  const double rounded = exponent < 0 ? exact / kExactPowersOfTen[-exponent] : exact * kExactPowersOfTen[exponent];
  if (rounded != 0 &&
      (rounded < std::numeric_limits<value_t>::min() || rounded > std::numeric_limits<value_t>::max())) {
    return false;  // subnormal or overflowing as a float
  }
  // A double keeps 29 more mantissa bits than a float; halfway between two
  // floats means exactly the top one of those 29 is set.
  constexpr std::uint64_t kDroppedBits = (std::uint64_t{1} << 29) - 1;
  constexpr std::uint64_t kHalfway = std::uint64_t{1} << 28;
  if ((std::bit_cast<std::uint64_t>(rounded) & kDroppedBits) == kHalfway) return false;
  const auto narrowed = static_cast<value_t>(rounded);
  value = negative ? -narrowed : narrowed;
  last = p;
  return true;
}

}  // namespace spmv::mm
