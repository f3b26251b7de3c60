// Every kernel auto's rule can pick (reference/include/spmv/reference/
// csr_auto.hpp), forced through csr_launch_choice, on the conformance
// matrices (matrix_cases.cpp) against golden, each twice on the same scratch
// (the second call finds the first's tile ends there): auto runs whichever
// the rule picks, so each one must be right on every matrix, not only on
// those the rule gives it. Also csr_merge's tiles in one launch with scratch
// of arbitrary words, and with another matrix's tile ends.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "kernel_check.hpp"
#include "matrix_cases.hpp"
#include "sparse_test_support.hpp"
#include "spmv/core/golden.hpp"
#include "spmv/core/tolerance.hpp"
#include "spmv/memory/format_views.hpp"
#include "spmv/reference/csr_auto.hpp"
#include "uploaded_matrix.hpp"

namespace spmv::test {
namespace {

using reference::CsrAutoChoice;
using Kernel = CsrAutoChoice::Kernel;

CsrAutoChoice long_row_blocks(int rows) {
  CsrAutoChoice choice{Kernel::kRowBlocks, 1, rows};
  choice.block_long_rows = true;
  return choice;
}

CsrAutoChoice wide_rows() {
  CsrAutoChoice choice{Kernel::kRows, 1};
  choice.wide_rows = true;
  return choice;
}

CsrAutoChoice single_launch(int threads) {
  CsrAutoChoice choice{Kernel::kMergeSingle, 1};
  choice.tile_threads = threads;
  return choice;
}

// The candidates, with the parameters the rule gives (row blocks at both
// ends of their range, every vector group, csr_rows with 8 and 16 loads).
const std::vector<CsrAutoChoice>& choices() {
  static const std::vector<CsrAutoChoice> kChoices{
      {Kernel::kScalar, 1},        {Kernel::kRows, 1},           wide_rows(),
      {Kernel::kVector, 2, 1, 4},  {Kernel::kVector, 8, 1, 4},   {Kernel::kRowBlocks, 1, 1},
      {Kernel::kRowBlocks, 1, 64}, {Kernel::kRowBlocks, 1, 511}, long_row_blocks(1),
      long_row_blocks(48),         long_row_blocks(511),         {Kernel::kMerge, 1},
      single_launch(128),          single_launch(256),           single_launch(512)};
  return kChoices;
}

// A plugin-style entry per candidate (the run protocol launches entries);
// csr_merge keeps its name, so its atomics are allowed to vary.
template <std::size_t I>
spmv_status launch_choice(const void* view, const float* x, float* y, void* scratch, cudaStream_t stream) {
  return reference::csr_launch_choice(choices()[I], *static_cast<const spmv_csr_view*>(view), x, y, scratch, stream);
}
size_t auto_scratch(const void* view) { return spmv_csr_auto_scratch_size(static_cast<const spmv_csr_view*>(view)); }

template <std::size_t... I>
std::vector<spmv_kernel_entry> make_entries(std::index_sequence<I...>) {
  std::vector<spmv_kernel_entry> entries;
  (entries.push_back(spmv_kernel_entry{choices()[I].kernel == Kernel::kMerge ? "csr_merge" : "auto_candidate",
                                       SPMV_FORMAT_CSR, "auto's candidate", &launch_choice<I>, &auto_scratch}),
   ...);
  return entries;
}

const std::vector<spmv_kernel_entry>& entries() {
  static const std::vector<spmv_kernel_entry> kEntries = make_entries(std::make_index_sequence<15>{});
  return kEntries;
}

std::string test_name(const CsrAutoChoice& choice) {
  std::string name;
  for (const char c : choice.describe()) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) name += c;
  }
  return name;
}

class AutoCandidateTest : public testing::Test {
 public:
  AutoCandidateTest(std::size_t index, const MatrixCase& matrix_case) : index_(index), case_(matrix_case) {}

 protected:
  void SetUp() override {
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: the kernels are tested on a GPU only";
    executor_ = runner::make_device_executor(0);
  }
  void TestBody() override {
    const std::uint64_t seed = fresh_seed();
    SPMV_TRACE_SEED(seed);
    const CsrMatrix a = case_.make(seed);
    const std::vector<float> x = random_vector(static_cast<std::size_t>(a.cols), seed ^ 0x9e3779b97f4a7c15ULL);
    expect_matches_golden(entries()[index_], uploaded_layouts(SPMV_FORMAT_CSR, a), a, x, *executor_);
  }

 private:
  std::size_t index_;
  const MatrixCase& case_;
  std::unique_ptr<runner::Executor> executor_;
};

const bool kTestsRegistered = [] {
  for (std::size_t i = 0; i < choices().size(); ++i) {
    const std::string suite = "AutoCandidate_" + test_name(choices()[i]);
    for (const MatrixCase& matrix_case : matrix_cases()) {
      testing::RegisterTest(suite.c_str(), matrix_case.name, nullptr, nullptr, __FILE__, __LINE__,
                            [i, &matrix_case]() -> testing::Test* { return new AutoCandidateTest(i, matrix_case); });
    }
  }
  return true;
}();

// Rows of mixed lengths, some spanning several tiles of every shape, in an
// order drawn from `order`: the same sizes, other tile ends.
CsrMatrix mixed_rows(std::uint64_t seed, std::uint64_t order) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<index_t> short_row(0, 12);
  std::vector<index_t> lengths;
  for (int i = 0; i < 4000; ++i) lengths.push_back(short_row(rng));
  for (const index_t length : {5000, 607, 608, 1247, 1248, 1249, 2527, 2528, 0, 0, 9000}) lengths.push_back(length);
  std::mt19937_64 shuffler(order);
  std::shuffle(lengths.begin(), lengths.end(), shuffler);
  return rows_of_lengths(static_cast<index_t>(lengths.size()), 12000, lengths, seed ^ order);
}

// csr_merge's tiles in one launch on scratch of arbitrary words, then on
// the tile ends another matrix of the same shape left there.
TEST(AutoCandidateScratch, SingleLaunchMergeChecksWhatScratchHolds) {
  if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: the kernels are tested on a GPU only";
  const std::unique_ptr<runner::Executor> executor = runner::make_device_executor(0);
  const std::uint64_t seed = fresh_seed();
  SPMV_TRACE_SEED(seed);
  const CsrMatrix first = mixed_rows(seed, 1);
  const CsrMatrix second = mixed_rows(seed, 2);
  ASSERT_EQ(first.nnz(), second.nnz());
  for (const int threads : {128, 256, 512}) {
    SCOPED_TRACE("tile of " + std::to_string(threads) + " threads");
    const FormatBuffers<CsrMatrix> one = upload(MemorySpace::kDevice, first);
    const FormatBuffers<CsrMatrix> two = upload(MemorySpace::kDevice, second);
    RawBuffer scratch(MemorySpace::kDevice, spmv_csr_auto_scratch_size(&one.view));
    std::vector<std::uint32_t> words(scratch.bytes() / 4);
    std::mt19937 rng(static_cast<std::uint32_t>(seed));
    for (std::uint32_t& word : words) word = static_cast<std::uint32_t>(rng());
    scratch.copy_from_host(words.data(), words.size() * 4);
    for (const auto* pair : {&one, &two, &one}) {
      const CsrMatrix& a = pair == &two ? second : first;
      const std::vector<float> x = random_vector(static_cast<std::size_t>(a.cols), seed);
      Buffer<float> dx(MemorySpace::kDevice, std::span<const float>(x));
      Buffer<float> dy(MemorySpace::kDevice, static_cast<std::size_t>(a.rows));
      ASSERT_EQ(reference::csr_launch_choice(single_launch(threads), pair->view, dx.data(), dy.data(), scratch.data(),
                                             nullptr),
                0);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      const ToleranceVerdict verdict = check_result(a, x, golden_spmv(a, x), dy.download());
      EXPECT_TRUE(verdict.passed) << verdict.describe();
    }
  }
}

}  // namespace
}  // namespace spmv::test
