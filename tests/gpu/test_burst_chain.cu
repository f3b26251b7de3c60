// A burst's chain on the device (grader/runner/src/burst.cu) against the
// host's (spmv/runner/chain.hpp): the x the runner's kernels derive in the
// captured graph, and the digests of the reply, are the bits the grader's
// check makes from the kept y on the host. Tall matrices' folds are summed
// by a kernel of their own, many threads to a column, so they are here in
// every kind: a height that is a multiple of the width and one that is
// not, one word past a period, fewer columns than a warp (one, and seven,
// which a warp reads four periods of at once), and the shape that made
// the sum parallel (1.6 M rows over 2,000 columns); wide and square
// matrices keep the fold of one word. Without a GPU every test reports
// itself skipped.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "fresh_seed.hpp"
#include "spmv/contract/plugin_table.hpp"
#include "spmv/core/generators.hpp"
#include "spmv/memory/buffer.hpp"
#include "spmv/runner/burst.hpp"
#include "spmv/runner/chain.hpp"
#include "spmv/runner/executor.hpp"
#include "spmv/runner/launch.hpp"
#include "spmv/runner/protocol.hpp"
#include "spmv/runner/uploaded.hpp"

namespace spmv::runner {
namespace {

// The launch of the bursts: not a product with A (any y made from x
// serves the chain), y[r] a hash of x[r mod cols] and r, so that every
// link's y is new. Its words are bits, NaNs and all: the chain and the
// digests take bits.
__global__ void chain_test_kernel(std::int32_t rows, std::int32_t cols, const std::uint32_t* x, std::uint32_t* y) {
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (row < rows) y[row] = fmix32(x[row % cols] + static_cast<std::uint32_t>(row));
}

spmv_status chain_test_launch(const spmv_csr_view* a, const float* x, float* y, void*, cudaStream_t stream) {
  chain_test_kernel<<<static_cast<unsigned>((a->rows + 255) / 256), 256, 0, stream>>>(
      a->rows, a->cols, reinterpret_cast<const std::uint32_t*>(x), reinterpret_cast<std::uint32_t*>(y));
  return static_cast<spmv_status>(cudaGetLastError());
}

struct Shape {
  std::int32_t rows, cols;
};
void PrintTo(const Shape& shape, std::ostream* out) { *out << shape.rows << " x " << shape.cols; }

class BurstChain : public testing::TestWithParam<Shape> {
 protected:
  void SetUp() override {
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: the bursts are the runner's CUDA graphs";
    executor_ = make_device_executor(0);
    executor_->load_own_kernels();
  }

  // After a burst of kLinks links: link kLinks's x as the graph left it
  // on the device, against x made on the host from the kept y of the link
  // before it; both kept y against the reply's digests.
  void expect_host_bits(Bursts& bursts, LaunchArea& area, std::uint64_t seed, std::span<const std::uint64_t> digests,
                        const std::string& which) {
    const auto rows = static_cast<std::size_t>(area.rows());
    const auto cols = static_cast<std::size_t>(area.cols());
    bursts.keep_link(kLinks, 0);
    std::vector<std::uint32_t> previous(slot_words(area.rows())), own(slot_words(area.rows()));
    bursts.copy_kept(0, previous.data(), own.data());
    const std::span<const std::uint32_t> previous_y = std::span(previous).subspan(kYGuardWords, rows);
    EXPECT_EQ(digest_of(previous_y), digests[kLinks - 2]) << which << ": link " << kLinks - 1;
    EXPECT_EQ(digest_of(std::span(own).subspan(kYGuardWords, rows)), digests[kLinks - 1]) << which;

    std::vector<std::uint32_t> device_x(cols);
    ASSERT_EQ(cudaMemcpy(device_x.data(), area.x_words() + kXGuardWords, cols * sizeof(std::uint32_t),
                         cudaMemcpyDeviceToHost),
              cudaSuccess);
    std::size_t wrong = 0, first_wrong = 0;
    for (std::size_t i = 0; i < cols; ++i) {
      if (device_x[i] != link_x_word(seed, kLinks, previous_y.data(), rows, cols, i) && wrong++ == 0) first_wrong = i;
    }
    EXPECT_EQ(wrong, 0U) << which << ": " << wrong << " of " << cols
                         << " words of x differ from the host's, the first x[" << first_wrong << "]";
  }

  static constexpr int kLinks = 4;
  const std::uint64_t seed_ = test::fresh_seed();
  std::unique_ptr<Executor> executor_;
};

// Bursts with the launch and without (the calibration's graph), each
// replayed twice with new seeds: each link's sums start from zero again.
TEST_P(BurstChain, TheDevicesXAndDigestsAreTheHostsBits) {
  SPMV_TRACE_SEED(seed_);
  const Shape shape = GetParam();
  SCOPED_TRACE(std::to_string(shape.rows) + " x " + std::to_string(shape.cols));
  const CsrMatrix a = gen::uniform_random(shape.rows, shape.cols, 1, seed_);  // its shape is all the launch uses
  const std::unique_ptr<UploadedMatrix> uploaded = upload_matrix(MemorySpace::kDevice, a);
  static constexpr spmv_kernel_entry kKernel = contract::kernel_entry<&chain_test_launch>("chain_test", "");
  LaunchArea area(*executor_, *uploaded, &kKernel, a.rows, a.cols);
  Bursts bursts(*executor_, area, kLinks, 1);
  std::vector<std::uint64_t> digests(kLinks);
  for (int burst = 0; burst < 2; ++burst) {
    const std::uint64_t seed = seed_ + 2 * static_cast<std::uint64_t>(burst);
    bursts.run(seed, true, digests);
    expect_host_bits(bursts, area, seed, digests, "burst " + std::to_string(burst) + " with its launches");
    bursts.run(seed + 1, false, digests);  // the links' y are the last burst's, as they were left
    expect_host_bits(bursts, area, seed + 1, digests, "burst " + std::to_string(burst) + " without its launches");
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, BurstChain,
                         testing::Values(Shape{1'600'000, 2'000}, Shape{100'003, 37}, Shape{1'000'003, 7},
                                         Shape{80'000, 2'000}, Shape{2'001, 2'000}, Shape{50'000, 1}, Shape{300, 5'000},
                                         Shape{4'096, 4'096}),
                         [](const testing::TestParamInfo<Shape>& info) {
                           return std::to_string(info.param.rows) + "x" + std::to_string(info.param.cols);
                         });

}  // namespace
}  // namespace spmv::runner
