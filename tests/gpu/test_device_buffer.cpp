// A device buffer filled with one 32-bit word (RawBuffer::fill_words,
// through the host): every word of it, at sizes from one word to 64 MiB.

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

#include "fresh_seed.hpp"
#include "spmv/memory/buffer.hpp"

namespace spmv {
namespace {

TEST(DeviceBuffer, FillWordsSetsEveryWord) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: device memory is tested on a GPU only";
  const std::uint64_t seed = ::spmv::test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 random{seed};
  constexpr std::size_t kMiB = std::size_t{1} << 20;
  const std::size_t odd = std::uniform_int_distribution<std::size_t>(1, 1000)(random) * 4;
  for (const std::size_t bytes : {std::size_t{4}, kMiB - 4, kMiB, kMiB + odd, 9 * kMiB + odd, 64 * kMiB + 4}) {
    RawBuffer buffer(MemorySpace::kDevice, bytes);
    const auto word = static_cast<std::uint32_t>(random());
    buffer.fill_words(word);
    std::vector<std::uint32_t> back(bytes / 4, ~word);
    buffer.copy_to_host(back.data(), bytes);
    std::size_t wrong = 0;
    for (const std::uint32_t got : back) wrong += got != word;
    EXPECT_EQ(wrong, 0U) << bytes << " bytes filled with " << word;
  }
}

}  // namespace
}  // namespace spmv
