// The buffers the copies of checked links go into: reused while the size
// asked for stays the same, freed when it changes, kept only up to a cap,
// and never handed to two owners at once.

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

TEST(CopyBuffers, AnotherSizeFreesTheKeptOnesAndOldOnesAreNotKept) {
  CopyBuffers buffers;
  auto old_size = buffers.take(1000);
  { const auto kept = buffers.take(1000); }
  EXPECT_EQ(buffers.kept(), 1U);
  const auto bigger = buffers.take(2000);
  EXPECT_EQ(buffers.kept(), 0U) << "buffers of the old size stay kept";
  old_size.reset();  // given back after the size changed: freed
  EXPECT_EQ(buffers.kept(), 0U);
}

TEST(CopyBuffers, NoMoreThanTheCapIsKept) {
  const std::size_t words = 256;
  CopyBuffers buffers(3 * words * sizeof(std::uint32_t));
  std::vector<std::shared_ptr<std::uint32_t[]>> held;
  for (int k = 0; k < 5; ++k) held.push_back(buffers.take(words));
  held.clear();
  EXPECT_EQ(buffers.kept(), 3U);
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
