// Chained bursts: how a kernel is timed from outside its process.
//
// The grader (the trusted parent) times a runner's reply to one request
// with its own clock. The request asks for a burst of `links` launches
// chained through their results, so that every launch counted must do its
// work inside the burst, in order:
//
//   y_k = A x_k                      (the plugin's launch, into history slot k)
//   d_k = digest(y_k)                (the runner's kernel: order-free, over y's bits)
//   x_k[i] = link_x_bits(link_seed(seed, k, d_{k-1}), y_{k-1}[i mod rows], i)
//                                    (the runner's kernel, on the device; d_0 = 0,
//                                     y_0 = 0)
//
// No launch can start before the previous result exists (its x depends on
// every bit of that result, and each x[i] on one of its values as well, so
// a kernel cannot make x on the fly for less than reading it), nothing can
// be left to a later request (the
// reply carries d_1 .. d_K, fixed before the parent's clock stops), and no
// two launches can be merged (the seed is new for every burst). After the
// reply the parent picks links at random, asks for y_{k-1} and y_k, derives
// x_k from y_{k-1} itself, and checks y_k against its golden result and
// both digests against the reply: a link whose work was skipped, faked or
// done after the reply is caught whenever it is picked.
//
// A burst is replayed from a CUDA graph captured once (the plugin's host
// code runs only while it is captured), so its time is the GPU's, not the
// host's pace in making launch calls. The same burst without the plugin's
// launches (calibration, timed before the plugin is loaded) gives the
// runner's own cost, which the parent subtracts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "spmv/runner/x_values.hpp"

namespace spmv::runner {

// Launches in one burst, at most (the reply carries one digest each).
inline constexpr int kMaxLinks = 512;

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

// The seed of link `link`'s x (x_values.hpp), from the burst's seed and the
// digest of the previous link's y (0 for the first link).
SPMV_HOST_DEVICE inline std::uint64_t link_seed(std::uint64_t burst_seed, std::uint64_t link,
                                                std::uint64_t previous_digest) {
  return mix64(burst_seed ^ mix64(previous_digest + link * 0xd1b54a32d192ed03ULL));
}

// x[i] of a link: x_values.hpp's values (same magnitudes, never zero),
// from the link's seed and the bits of one value of the previous y.
SPMV_HOST_DEVICE inline std::uint32_t link_x_bits(std::uint64_t seed, std::uint32_t previous_y_bits, std::uint64_t i) {
  return x_bits(seed ^ mix64(previous_y_bits), i);
}

// The digest of a y, as the runner's kernel makes it (on the host: the
// parent's check, the host path).
inline std::uint64_t digest_of(std::span<const std::uint32_t> y) {
  std::uint64_t sum = 0;
  for (std::size_t i = 0; i < y.size(); ++i) sum += digest_term(y[i], i);
  return sum;
}

}  // namespace spmv::runner
