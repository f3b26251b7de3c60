// csr_merge keeps the tile boundaries it found in its scratch and, on the
// next call, uses each one it finds there only after checking it against
// row_ptr. These tests hand it one scratch buffer across calls on different
// matrices of the same shape (so the boundaries left there lie on the right
// diagonals but are wrong), and scratch filled with arbitrary words, and
// expect the right y every time. auto, which runs csr_merge with its own
// scratch on skewed rows, gets the same treatment.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "matrix_cases.hpp"
#include "sparse_test_support.hpp"
#include "spmv/contract/plugin_table.hpp"
#include "spmv/core/golden.hpp"
#include "spmv/core/tolerance.hpp"
#include "spmv/memory/buffer.hpp"
#include "spmv/runner/launch.hpp"

namespace spmv::test {
namespace {

// Row lengths summing to the same total in a different order: the same
// rows, columns and entries, different tile boundaries. Long rows (spanning
// several of csr_merge's tiles), runs of empty rows and short rows.
std::vector<index_t> mixed_lengths(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<index_t> lengths;
  std::uniform_int_distribution<index_t> short_row(0, 12);
  for (int i = 0; i < 6000; ++i) lengths.push_back(short_row(rng));
  for (const index_t length : {5000, 9000, 2527, 2528, 0, 0, 0, 5057, 20000}) lengths.push_back(length);
  std::shuffle(lengths.begin(), lengths.end(), rng);
  return lengths;
}

class MergeScratchTest : public testing::TestWithParam<std::string_view> {
 protected:
  void SetUp() override {
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: the kernels are tested on a GPU only";
    const spmv_plugin* plugin = spmv_plugin_entry();
    for (std::uint32_t i = 0; i < plugin->kernel_count; ++i) {
      if (GetParam() == plugin->kernels[i].name) kernel_ = &plugin->kernels[i];
    }
    ASSERT_NE(kernel_, nullptr) << "no kernel \"" << GetParam() << "\" in the reference table";
    executor_ = runner::make_device_executor(0);
  }

  // Runs the kernel on `a` with `scratch` as it is, through the run
  // protocol (spmv/runner/launch.hpp), and checks y against golden.
  void run_and_check(const CsrMatrix& a, const runner::UploadedMatrix& uploaded, const RawBuffer& scratch,
                     std::uint64_t seed, const std::string& what) {
    SCOPED_TRACE(what);
    EXPECT_GE(scratch.bytes(), kernel_->scratch_size(uploaded.view()));
    const std::vector<float> x = random_vector(static_cast<std::size_t>(a.cols), seed);
    runner::LaunchArea area(*executor_, uploaded, kernel_, a.rows, a.cols, &scratch);
    area.prepare(std::span<const float>(x));
    const runner::LaunchStatus launched = area.launch();
    ASSERT_TRUE(launched.ok()) << "the launch " << runner::describe_launch(launched);
    const ToleranceVerdict verdict = check_result(a, x, golden_spmv(a, x), runner::y_of_slot(area.slot(), a.rows));
    EXPECT_TRUE(verdict.passed) << verdict.describe();
    EXPECT_TRUE(area.modified_inputs().empty()) << "the kernel wrote to its inputs";
  }

  std::unique_ptr<runner::Executor> executor_;
  const spmv_kernel_entry* kernel_ = nullptr;
};

TEST_P(MergeScratchTest, ScratchLeftByAnotherMatrixOfTheSameShape) {
  const std::uint64_t seed = fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::vector<index_t> lengths = mixed_lengths(seed);
  const CsrMatrix a = rows_of_lengths(static_cast<index_t>(lengths.size()), 30'000, lengths, seed + 2);
  std::reverse(lengths.begin(), lengths.end());
  const CsrMatrix b = rows_of_lengths(static_cast<index_t>(lengths.size()), 30'000, lengths, seed + 3);
  ASSERT_EQ(a.nnz(), b.nnz());
  const auto a_uploaded = runner::upload_matrix(MemorySpace::kDevice, a);
  const auto b_uploaded = runner::upload_matrix(MemorySpace::kDevice, b);
  RawBuffer scratch(MemorySpace::kDevice, std::max<std::size_t>(kernel_->scratch_size(a_uploaded->view()), 4));

  run_and_check(a, *a_uploaded, scratch, seed + 4, "a, first call");
  run_and_check(a, *a_uploaded, scratch, seed + 5, "a, its boundaries kept");
  run_and_check(b, *b_uploaded, scratch, seed + 6, "b, a's boundaries left in scratch");
  run_and_check(b, *b_uploaded, scratch, seed + 7, "b, its own boundaries kept");
  run_and_check(a, *a_uploaded, scratch, seed + 8, "a, b's boundaries left in scratch");
}

TEST_P(MergeScratchTest, ScratchOfArbitraryWords) {
  const std::uint64_t seed = fresh_seed();
  SPMV_TRACE_SEED(seed);
  const std::vector<index_t> lengths = mixed_lengths(seed);
  const CsrMatrix a = rows_of_lengths(static_cast<index_t>(lengths.size()), 30'000, lengths, seed + 1);
  const auto uploaded = runner::upload_matrix(MemorySpace::kDevice, a);
  const std::size_t bytes = (std::max<std::size_t>(kernel_->scratch_size(uploaded->view()), 4) + 3) / 4 * 4;
  RawBuffer scratch(MemorySpace::kDevice, bytes);
  std::mt19937_64 rng(seed);
  for (const std::uint32_t word : {0U, 0xffffffffU, kPoisonBits, 0x00000001U}) {
    scratch.fill_words(word);
    run_and_check(a, *uploaded, scratch, rng(), "scratch filled with " + std::to_string(word));
  }
  std::vector<std::uint32_t> words(bytes / 4);
  for (std::uint32_t& word : words) word = static_cast<std::uint32_t>(rng());
  scratch.copy_from_host(words.data(), bytes);
  run_and_check(a, *uploaded, scratch, rng(), "scratch of random words");
}

INSTANTIATE_TEST_SUITE_P(Reference, MergeScratchTest, testing::Values("csr_merge", "auto"),
                         [](const testing::TestParamInfo<std::string_view>& param) {
                           return std::string(param.param);
                         });

}  // namespace
}  // namespace spmv::test
