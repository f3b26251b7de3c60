// A fresh seed for every randomized test, shown when the test fails and
// replayable: each run draws new inputs; SPMV_TEST_SEED=<n> draws a failed
// run's again.
//
//   const std::uint64_t seed = spmv::test::fresh_seed();
//   SPMV_TRACE_SEED(seed);
//   std::mt19937_64 random{seed};
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>

namespace spmv::test {

inline std::uint64_t fresh_seed() {
  if (const char* fixed = std::getenv("SPMV_TEST_SEED")) return std::stoull(fixed);
  std::random_device device;
  return (std::uint64_t{device()} << 32) ^ device();
}

inline std::string seed_note(std::uint64_t seed) {
  return "seed " + std::to_string(seed) + " (replay: SPMV_TEST_SEED=" + std::to_string(seed) + ")";
}

}  // namespace spmv::test

// Names the seed in every failure message of the enclosing scope.
#define SPMV_TRACE_SEED(seed) SCOPED_TRACE(::spmv::test::seed_note(seed))
