// Chained bursts: how a kernel is timed from outside its process.
//
// The grader (the trusted parent) times a runner's reply to one request
// with its own clock. The request asks for a burst of `links` launches
// chained through their results, so that every launch counted must do its
// work inside the burst, in order:
//
//   x_k[i] = link_x_bits(link_seed(seed, k), fold_i(y_(k-1)), i)
//                                    (the runner's kernel, on the device;
//                                     y_0 = 0)
//   y_k = A x_k                      (the plugin's launch, into history slot k)
//   d_k = digest(y_k)                (the runner's kernel, once over every
//                                     link's y after the last launch:
//                                     order-free, over y's bits)
//
// where fold_i(y) is y[i mod rows] and, when the matrix has more rows
// than columns, plus fold_term(y[j], j) for every j = i + cols, i + 2 cols,
// ... below rows, mod 2^32 (fold_previous), so that every bit of y_(k-1)
// reaches some x_k[i]. A sum is the same in any order and any grouping:
// the runner's kernels sum a tall matrix's y by column in parallel,
// reading it once, not in a chain of rows / cols dependent steps per x[i].
// No launch can start before the previous result exists (its x is made
// from that result, and a kernel cannot make x on the fly for less than
// reading it), nothing can be left to a later request (the reply carries
// d_1 .. d_K, made before the parent's clock stops), and no two launches
// can be merged (the seed is new for every burst). After the reply the
// parent picks links at random, asks for y_(k-1) and y_k, derives x_k
// from y_(k-1) itself, and checks y_k against its golden result and both
// digests against the reply: a link whose work was skipped, faked or done
// after the reply is caught whenever it is picked.
//
// A burst is replayed from a CUDA graph captured once (the plugin's host
// code runs only while it is captured), so its time is the GPU's, not the
// host's pace in making launch calls. Between two launches the runner has
// the x derivation, one kernel, preceded for a matrix with more rows than
// columns by one that sums the terms of each column; the digests are one
// kernel after the last launch. The same burst without the plugin's
// launches (calibration, timed in the reference runner) gives the
// runner's own cost, which the parent subtracts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "spmv/runner/x_values.hpp"

namespace spmv::runner {

// Launches in one burst, at most (the reply carries one digest each).
inline constexpr int kMaxLinks = 512;

// Pairs of links' y a runner keeps for the parent's later copies (kKeepLink),
// at most.
inline constexpr int kMaxKeptPairs = 64;

// Words from one link's y to the next in a burst's history: a row's miss
// by a few words lands in the gap, not in the next link's y.
inline std::size_t history_stride_words(std::int64_t rows) {
  return (static_cast<std::size_t>(rows) + 64 + 63) / 64 * 64;
}
// Bytes of y history a burst of `links` keeps for `rows` rows.
inline std::size_t history_bytes(std::int64_t rows, int links) {
  return history_stride_words(rows) * static_cast<std::size_t>(links) * sizeof(float);
}

SPMV_HOST_DEVICE inline std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// One row's share of a digest: a sum of these over every row (mod 2^64) is
// the same in any order of summation, and changes with any bit of any row.
SPMV_HOST_DEVICE inline std::uint64_t digest_term(std::uint32_t bits, std::uint64_t row) {
  return mix64((static_cast<std::uint64_t>(bits) << 32 ^ row) + 0x9e3779b97f4a7c15ULL);
}

// The seed of link `link`'s x (x_values.hpp), from the burst's seed.
SPMV_HOST_DEVICE inline std::uint64_t link_seed(std::uint64_t burst_seed, std::uint64_t link) {
  return mix64(burst_seed ^ mix64(link * 0xd1b54a32d192ed03ULL + 0x2545f4914f6cdd1dULL));
}

// A bijection of 32-bit words that mixes every bit into every other
// (MurmurHash3's finalizer): cheap on the GPU, which has no 64-bit multiply.
SPMV_HOST_DEVICE inline std::uint32_t fmix32(std::uint32_t h) {
  h ^= h >> 16;
  h *= 0x85ebca6bU;
  h ^= h >> 13;
  h *= 0xc2b2ae35U;
  return h ^ (h >> 16);
}

// y[j]'s term in the fold of x[j mod cols], for j >= cols: a bijection of
// the word for a given j (the word plus a constant of j, through fmix32),
// so any change to y[j] changes the sum it is in, whatever the other
// terms. j is in it so that words swapped between two rows of a column
// change the sum too (but for a chance of 2^-32), where a sum of the
// words' hashes alone could not tell.
SPMV_HOST_DEVICE inline std::uint32_t fold_term(std::uint32_t word, std::size_t j) {
  return fmix32(word + static_cast<std::uint32_t>(j) * 0x9e3779b1U);
}

// What x[i] of a link takes from the previous link's y (`rows` words; null
// for the first link): y[i mod rows], plus (mod 2^32) fold_term(y[j], j)
// for every j = i + cols, i + 2 cols, ... below rows. Every y[j] is in the
// fold of x[j mod cols] (and, with fewer rows than columns, of every x[i]
// with i mod rows = j), as itself or through a term that is a bijection
// of it: every bit of every y[j] changes that fold, and link_x_bits is a
// bijection of the fold, whatever the rest of y. A sum is the same in any
// order and any grouping: the runner's kernels sum each column's terms in
// chunks, in parallel (burst.cu), and make these bits.
SPMV_HOST_DEVICE inline std::uint32_t fold_previous(const std::uint32_t* previous_y, std::size_t rows, std::size_t cols,
                                                    std::size_t i) {
  if (previous_y == nullptr || rows == 0) return 0;
  std::uint32_t folded = previous_y[i < rows ? i : i % rows];  // a GPU's 64-bit division is slow: only if needed
  for (std::size_t j = i + cols; j < rows; j += cols) folded += fold_term(previous_y[j], j);
  return folded;
}

// x[i] of a link: x_values.hpp's values (same magnitudes, never zero:
// the sign and mantissa of the hash, the exponent of 0.5), from the link's
// seed and what it takes from the previous y; a bijection of `folded` for
// a given seed and i. 32-bit arithmetic: the runner's kernel makes a
// link's x in about the time it takes to read y and write x.
SPMV_HOST_DEVICE inline std::uint32_t link_x_bits(std::uint64_t seed, std::uint32_t folded, std::uint64_t i) {
  const std::uint32_t h = fmix32((folded ^ static_cast<std::uint32_t>(seed)) +
                                 static_cast<std::uint32_t>(i) * 0x9e3779b1U + static_cast<std::uint32_t>(seed >> 32));
  return (h & 0x80000000U) | 0x3f000000U | (h & 0x7fffffU);
}

// x[i] of link `link` of the burst of `burst_seed`, whose previous y is
// `previous_y` (null for the first link): the runner's kernel, the host
// path and the parent's check all make x so.
SPMV_HOST_DEVICE inline std::uint32_t link_x_word(std::uint64_t burst_seed, int link, const std::uint32_t* previous_y,
                                                  std::size_t rows, std::size_t cols, std::size_t i) {
  return link_x_bits(link_seed(burst_seed, static_cast<std::uint64_t>(link)), fold_previous(previous_y, rows, cols, i),
                     i);
}

// The digest of a y, as the runner's kernel makes it (on the host: the
// parent's check, the host path).
inline std::uint64_t digest_of(std::span<const std::uint32_t> y) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < y.size(); ++i) sum += digest_term(y[i], i);
  return sum;
}

}  // namespace spmv::runner
