// The one launch (spmv/runner/launch.hpp) in host memory, with CSR kernels
// written here, each with one fault: every step must see exactly its fault.
// The runner, the GPU tests, the host-path tests, spmv-cases and spmv-bench
// all launch through it, so what it misses they all miss.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "sparse_test_support.hpp"
#include "spmv/contract/plugin_table.hpp"
#include "spmv/core/generators.hpp"
#include "spmv/core/golden.hpp"
#include "spmv/core/tolerance.hpp"
#include "spmv/runner/burst.hpp"
#include "spmv/runner/chain.hpp"
#include "spmv/runner/launch.hpp"
#include "spmv/runner/protocol.hpp"
#include "spmv/runner/x_values.hpp"
#include "spmv/runner/y_guards.hpp"

namespace spmv::runner {
namespace {

void multiply(const spmv_csr_view& a, const float* x, float* y) {
  for (std::int32_t row = 0; row < a.rows; ++row) {
    float sum = 0.0F;
    for (std::int32_t j = a.row_ptr[row]; j < a.row_ptr[row + 1]; ++j) sum += a.values[j] * x[a.col_idx[j]];
    y[row] = sum;
  }
}

spmv_status correct(const spmv_csr_view* a, const float* x, float* y, void*, cudaStream_t) {
  multiply(*a, x, y);
  return SPMV_SUCCESS;
}
spmv_status writes_x(const spmv_csr_view* a, const float* x, float* y, void*, cudaStream_t) {
  multiply(*a, x, y);
  const_cast<float*>(x)[a->cols - 1] += 1.0F;
  return SPMV_SUCCESS;
}
spmv_status writes_before_x(const spmv_csr_view* a, const float* x, float* y, void*, cudaStream_t) {
  multiply(*a, x, y);
  const_cast<float*>(x)[-3] = 0.0F;
  return SPMV_SUCCESS;
}
spmv_status writes_around_y(const spmv_csr_view* a, const float* x, float* y, void*, cudaStream_t) {
  multiply(*a, x, y);
  y[-2] = 1.0F;
  y[a->rows + 5] = 1.0F;
  return SPMV_SUCCESS;
}
spmv_status writes_col_idx(const spmv_csr_view* a, const float* x, float* y, void*, cudaStream_t) {
  multiply(*a, x, y);
  const_cast<std::int32_t*>(a->col_idx)[0] ^= 1;
  return SPMV_SUCCESS;
}
spmv_status reads_past_values(const spmv_csr_view* a, const float* x, float* y, void*, cudaStream_t) {
  multiply(*a, x, y);
  y[0] += a->values[a->nnz] * 0.0F;  // the NaN guard after values
  return SPMV_SUCCESS;
}
spmv_status not_implemented(const spmv_csr_view*, const float*, float*, void*, cudaStream_t) {
  return SPMV_NOT_IMPLEMENTED;
}

struct Outcome {
  LaunchStatus status;
  std::vector<float> y;
  GuardDamage guards;
  std::vector<std::string> modified;
  bool correct = false;
};

class LaunchAreaTest : public testing::Test {
 protected:
  LaunchAreaTest()
      : seed_(test::fresh_seed()),
        a_(gen::uniform_random(300, 200, 6, seed_)),
        uploaded_(upload_matrix(MemorySpace::kHost, a_)),
        executor_(make_host_executor()) {}

  // One launch of `kernel` on a fresh upload, x from a seed (as the runner
  // does) or given (as the tests do).
  Outcome run(const spmv_kernel_entry& kernel, bool x_from_seed) {
    uploaded_ = upload_matrix(MemorySpace::kHost, a_);
    LaunchArea area(*executor_, *uploaded_, &kernel, a_.rows, a_.cols);
    std::vector<float> x = random_vector(static_cast<std::size_t>(a_.cols), seed_ + 1);
    if (x_from_seed) {
      area.prepare(seed_ + 2);
      for (std::size_t i = 0; i < x.size(); ++i) x[i] = std::bit_cast<float>(x_bits(seed_ + 2, i));
    } else {
      area.prepare(std::span<const float>(x));
    }
    Outcome result;
    result.status = area.launch();
    const std::vector<std::uint32_t> slot = area.slot();
    result.y = y_of_slot(slot, a_.rows);
    result.guards = inspect_y_guards(guard_before(slot), guard_after(slot, a_.rows));
    result.modified = area.modified_inputs();
    result.correct = check_result(a_, x, golden_spmv(a_, x), result.y).passed;
    return result;
  }

  std::uint64_t seed_;
  CsrMatrix a_;
  std::unique_ptr<UploadedMatrix> uploaded_;
  std::unique_ptr<Executor> executor_;
};

TEST_F(LaunchAreaTest, ACorrectKernelLeavesNothingToReport) {
  SPMV_TRACE_SEED(seed_);
  for (const bool from_seed : {true, false}) {
    const Outcome r = run(contract::kernel_entry<&correct>("csr_scalar", "correct"), from_seed);
    EXPECT_TRUE(r.status.ok());
    EXPECT_TRUE(r.correct);
    EXPECT_FALSE(r.guards.any());
    EXPECT_TRUE(r.modified.empty()) << r.modified.front();
  }
}

// An upload that keeps no originals (the reference runner's, whose host
// matrix is freed once uploaded) still knows its shape and format, and
// still sees a write to the view or into a guard zone; a change to an
// array it has nothing to compare with.
TEST_F(LaunchAreaTest, AnUploadWithoutItsOriginalsStillSeesItsGuardsAndView) {
  SPMV_TRACE_SEED(seed_);
  std::unique_ptr<UploadedMatrix> kept;
  std::unique_ptr<UploadedMatrix> not_kept;
  {
    const CsrMatrix copy = a_;
    kept = upload_matrix(MemorySpace::kHost, a_);
    not_kept = upload_matrix(MemorySpace::kHost, copy, Originals::kNotKept);
  }  // `copy` is gone: an upload that kept it would read freed memory
  for (const auto* upload : {kept.get(), not_kept.get()}) {
    EXPECT_EQ(upload->format(), SPMV_FORMAT_CSR);
    EXPECT_EQ(upload->rows(), a_.rows);
    EXPECT_EQ(upload->cols(), a_.cols);
    EXPECT_TRUE(upload->modified_arrays().empty());
    const auto* view = static_cast<const spmv_csr_view*>(upload->view());
    ASSERT_GT(view->nnz, 0);
    const_cast<std::int32_t*>(view->col_idx)[view->nnz - 1] ^= 1;
  }
  EXPECT_EQ(kept->modified_arrays(), std::vector<std::string>{"col_idx"});
  EXPECT_TRUE(not_kept->modified_arrays().empty()) << "nothing to compare col_idx with";
  const auto* view = static_cast<const spmv_csr_view*>(not_kept->view());
  const_cast<float*>(view->values)[view->nnz] = 1.0F;  // the first word of the guard after values
  EXPECT_EQ(not_kept->modified_arrays(), std::vector<std::string>{"the guard zones around values"});
}

TEST_F(LaunchAreaTest, EachFaultIsSeenWhereItIs) {
  SPMV_TRACE_SEED(seed_);
  for (const bool from_seed : {true, false}) {
    SCOPED_TRACE(from_seed ? "x from a seed" : "x given");
    EXPECT_EQ(run(contract::kernel_entry<&writes_x>("csr_scalar", ""), from_seed).modified,
              std::vector<std::string>{"x"});
    EXPECT_EQ(run(contract::kernel_entry<&writes_before_x>("csr_scalar", ""), from_seed).modified,
              std::vector<std::string>{"the guard zones around x"});
    EXPECT_EQ(run(contract::kernel_entry<&writes_col_idx>("csr_scalar", ""), from_seed).modified,
              std::vector<std::string>{"col_idx"});
    const Outcome around = run(contract::kernel_entry<&writes_around_y>("csr_scalar", ""), from_seed);
    EXPECT_TRUE(around.correct);
    EXPECT_EQ(around.guards.nearest_before, 2);
    EXPECT_EQ(around.guards.nearest_after, 5);
    EXPECT_EQ(around.guards.words_before + around.guards.words_after, 2);
    EXPECT_NE(describe_y_guards(around.guards, a_.rows).find("y[-2]"), std::string::npos);
    const Outcome past = run(contract::kernel_entry<&reads_past_values>("csr_scalar", ""), from_seed);
    EXPECT_FALSE(past.correct) << "a read past values found no NaN";
    EXPECT_TRUE(past.modified.empty());
  }
}

TEST_F(LaunchAreaTest, NotImplementedLeavesYPoisoned) {
  const Outcome r = run(contract::kernel_entry<&not_implemented>("csr_scalar", ""), true);
  EXPECT_EQ(r.status.status, SPMV_NOT_IMPLEMENTED);
  EXPECT_EQ(describe_launch(r.status), "returned SPMV_NOT_IMPLEMENTED");
  for (const float y : r.y) EXPECT_EQ(std::bit_cast<std::uint32_t>(y), kPoisonBits);
}

TEST_F(LaunchAreaTest, RefusesAnXOfTheWrongLength) {
  constexpr spmv_kernel_entry kernel = contract::kernel_entry<&correct>("csr_scalar", "");
  LaunchArea area(*executor_, *uploaded_, &kernel, a_.rows, a_.cols);
  const std::vector<float> short_x(static_cast<std::size_t>(a_.cols) - 1, 1.0F);
  EXPECT_THROW(area.prepare(std::span<const float>(short_x)), std::invalid_argument);
}

// A burst's checked links kept on the runner's side (burst.hpp): copied
// out after later bursts, they are the kept burst's y (the y its reply's
// digests were made of), not a later burst's; link 1's previous slot is
// left as it was.
TEST_F(LaunchAreaTest, KeptLinksAreTheirBurstsYAfterTheBurstsThatFollow) {
  SPMV_TRACE_SEED(seed_);
  constexpr spmv_kernel_entry kernel = contract::kernel_entry<&correct>("csr_scalar", "");
  LaunchArea area(*executor_, *uploaded_, &kernel, a_.rows, a_.cols);
  constexpr int kLinks = 5;
  Bursts bursts(*executor_, area, kLinks, 2);
  ASSERT_EQ(bursts.kept_pairs(), 2);
  std::vector<std::uint64_t> kept_digests(kLinks), later_digests(kLinks);
  bursts.run(seed_ + 3, true, kept_digests);
  bursts.keep_link(4, 0);
  bursts.keep_link(1, 1);
  bursts.run(seed_ + 4, true, later_digests);  // every link's y written again
  ASSERT_NE(kept_digests, later_digests);

  const std::size_t words = slot_words(a_.rows);
  const auto y_digest = [&](const std::vector<std::uint32_t>& slot) {
    return digest_of(std::span<const std::uint32_t>(slot).subspan(kYGuardWords, static_cast<std::size_t>(a_.rows)));
  };
  std::vector<std::uint32_t> previous(words, 0x12345678U), own(words, 0x12345678U);
  bursts.copy_kept(0, previous.data(), own.data());
  EXPECT_EQ(y_digest(previous), kept_digests[2]) << "link 3, the one before link 4";
  EXPECT_EQ(y_digest(own), kept_digests[3]) << "link 4";
  EXPECT_FALSE(inspect_y_guards(guard_before(own), guard_after(own, a_.rows)).any());

  std::fill(previous.begin(), previous.end(), 0x12345678U);
  bursts.copy_kept(1, previous.data(), own.data());
  EXPECT_EQ(y_digest(own), kept_digests[0]) << "link 1";
  EXPECT_TRUE(std::all_of(previous.begin(), previous.end(), [](std::uint32_t w) { return w == 0x12345678U; }))
      << "link 1 has no y before it: its previous slot is left alone";

  EXPECT_THROW(bursts.keep_link(kLinks + 1, 0), std::invalid_argument);
  EXPECT_THROW(bursts.keep_link(1, 2), std::invalid_argument) << "only two pairs kept";
  EXPECT_THROW(Bursts(*executor_, area, kLinks, kMaxKeptPairs + 1), std::invalid_argument);
  Bursts none(*executor_, area, kLinks);
  EXPECT_EQ(none.kept_pairs(), 0);
  EXPECT_THROW(none.copy_kept(0, previous.data(), own.data()), std::invalid_argument);
}

// A runner whose memory runs short keeps fewer pairs (halving on a failed
// allocation), and says so: here in host memory, in a child process whose
// address space leaves room for half of the pairs asked for.
TEST(KeptLinks, ARunnerShortOfMemoryKeepsFewerPairs) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
  GTEST_SKIP() << "a sanitizer's allocator ends the process where malloc would fail";
#endif
  const std::uint64_t seed = test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  constexpr index_t kRows = 1'000'000;
  constexpr int kPairs = 8;  // 8 MB a pair: 64 MB asked for
  const CsrMatrix a = gen::uniform_random(kRows, 1000, 1, seed);
  const auto uploaded = upload_matrix(MemorySpace::kHost, a);
  const auto executor = make_host_executor();
  constexpr spmv_kernel_entry kernel = contract::kernel_entry<&correct>("csr_scalar", "");
  LaunchArea area(*executor, *uploaded, &kernel, a.rows, a.cols);
  EXPECT_EQ(Bursts(*executor, area, 2, kPairs).kept_pairs(), kPairs) << "with room for all of them";

  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The address space now, and 56 MB more: the history (8 MB, and its
    // poison pattern made and freed), then 32 MB of pairs but not 64.
    long pages = 0;
    if (FILE* statm = std::fopen("/proc/self/statm", "r")) {
      if (std::fscanf(statm, "%ld", &pages) != 1) pages = 0;
      std::fclose(statm);
    }
    const auto now = static_cast<rlim_t>(pages) * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE));
    const rlimit limit{now + (rlim_t{56} << 20), now + (rlim_t{56} << 20)};
    if (pages == 0 || ::setrlimit(RLIMIT_AS, &limit) != 0) ::_exit(100);
    try {
      const Bursts bursts(*executor, area, 2, kPairs);
      ::_exit(bursts.kept_pairs());
    } catch (...) {
      ::_exit(101);
    }
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  const int kept = WEXITSTATUS(status);
  EXPECT_NE(kept, 100) << "the child could not limit its address space";
  EXPECT_NE(kept, 101) << "no pair fitted at all";
  EXPECT_GE(kept, 1);
  EXPECT_LT(kept, kPairs) << "every pair fitted: the limit did not bite";
}

}  // namespace
}  // namespace spmv::runner
