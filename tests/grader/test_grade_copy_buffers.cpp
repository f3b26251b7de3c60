// The buffers the copies of checked links go into: reused by any later
// request that fits in them (the smallest that fits first), kept only up to
// a cap of bytes, and never handed to two owners at once.

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "fresh_seed.hpp"
#include "rows/copy_buffers.hpp"

namespace spmv::grade {
namespace {

TEST(CopyBuffers, ABufferGivenBackIsTheNextOneTakenOfItsSize) {
  CopyBuffers buffers;
  std::uint32_t* first = nullptr;
  {
    const auto taken = buffers.take(1000);
    first = taken.get();
    taken[999] = 7;
  }
  EXPECT_EQ(buffers.kept(), 1U);
  const auto again = buffers.take(1000);
  EXPECT_EQ(again.get(), first);
  EXPECT_EQ(buffers.kept(), 0U);
}

TEST(CopyBuffers, ASmallerRequestTakesTheSmallestKeptBufferItFitsIn) {
  CopyBuffers buffers;
  std::uint32_t* large = nullptr;
  std::uint32_t* middle = nullptr;
  {
    const auto a = buffers.take(4000);
    const auto b = buffers.take(2000);
    large = a.get();
    middle = b.get();
  }
  EXPECT_EQ(buffers.kept(), 2U);
  EXPECT_EQ(buffers.kept_bytes(), 6000 * sizeof(std::uint32_t));
  const auto small = buffers.take(1500);  // another case, fewer rows
  EXPECT_EQ(small.get(), middle) << "the smallest buffer that holds 1500 words";
  small[1499] = 3;
  const auto next = buffers.take(1000);
  EXPECT_EQ(next.get(), large);
  EXPECT_EQ(buffers.kept(), 0U);
}

TEST(CopyBuffers, ALargerRequestThanAnyKeptGetsAFreshBufferAndTheKeptOnesStay) {
  CopyBuffers buffers;
  { const auto kept = buffers.take(1000); }
  const auto bigger = buffers.take(2000);
  bigger[1999] = 5;
  EXPECT_EQ(buffers.kept(), 1U) << "the smaller buffer serves a later, smaller request";
  const auto smaller = buffers.take(800);
  EXPECT_EQ(buffers.kept(), 0U);
}

TEST(CopyBuffers, NoMoreThanTheCapIsKept) {
  const std::size_t words = 256;
  CopyBuffers buffers(3 * words * sizeof(std::uint32_t));
  std::vector<std::shared_ptr<std::uint32_t[]>> held;
  for (int k = 0; k < 5; ++k) held.push_back(buffers.take(words));
  held.clear();
  EXPECT_EQ(buffers.kept(), 3U);
  EXPECT_EQ(buffers.kept_bytes(), 3 * words * sizeof(std::uint32_t));
  held.push_back(buffers.take(3 * words));  // larger than any kept: a fresh one
  held.clear();
  EXPECT_EQ(buffers.kept(), 3U) << "a buffer over the cap is freed when given back";
}

TEST(CopyBuffers, ThreadsNeverShareABuffer) {
  CopyBuffers buffers;
  const std::size_t words = 4096;
  std::vector<std::thread> threads;
  std::vector<int> clashes(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      const std::uint64_t seed = ::spmv::test::fresh_seed();
      SPMV_TRACE_SEED(seed);
      std::mt19937 random{static_cast<std::uint32_t>(seed)};
      for (int round = 0; round < 200; ++round) {
        const auto buffer = buffers.take(words);
        const auto mark = static_cast<std::uint32_t>(random());
        for (std::size_t i = 0; i < words; i += 97) buffer[i] = mark;
        std::this_thread::yield();
        for (std::size_t i = 0; i < words; i += 97) clashes[static_cast<std::size_t>(t)] += buffer[i] != mark ? 1 : 0;
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(clashes[static_cast<std::size_t>(t)], 0) << "thread " << t;
  EXPECT_GE(buffers.kept(), 1U);
  EXPECT_LE(buffers.kept(), 8U);
}

}  // namespace
}  // namespace spmv::grade
