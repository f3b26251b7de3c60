// The kernel runs of validate, exercised without a GPU: the host-path
// plugins take host-memory views, so the same upload, poison, launch and
// tolerance check run on the CPU. The correct host reference must pass
// everywhere; each fake submission must be caught on every kernel.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "case_check.hpp"
#include "random_csr.hpp"
#include "spmv/core/generators.hpp"
#include "spmv/plugin/plugin.hpp"

namespace spmv::ta {
namespace {

namespace fs = std::filesystem;

const fs::path kPlugins = fs::path(SPMV_BINARY_DIR) / "plugins";

std::vector<const spmv_kernel_entry*> kernels_of(const Plugin& plugin) { return plugin.kernels(); }

CheckOptions on_host(std::uint64_t x_seed) {
  CheckOptions options;
  options.run_kernels = true;
  options.memory = MemorySpace::kHost;
  options.x_seed = x_seed;
  return options;
}

// Short, long and empty rows, and one row of 300 entries.
CsrMatrix random_matrix(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  test::RandomCsrShape shape;
  shape.rows = std::uniform_int_distribution<index_t>(50, 900)(rng);
  shape.cols = std::uniform_int_distribution<index_t>(50, 900)(rng);
  shape.long_row = 300;
  return test::random_csr(rng, shape);
}

TEST(KernelRuns, HostReferencePassesEveryKernel) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  const Plugin plugin = Plugin::load(kPlugins / "libspmv_host_reference.so", {.forbid_vendor_libraries = false});
  const auto kernels = kernels_of(plugin);
  ASSERT_FALSE(kernels.empty());
  const MatrixCheck check = check_matrix(random_matrix(seed), kernels, on_host(seed));
  EXPECT_TRUE(check.problems.empty()) << check.problems.front();
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    EXPECT_EQ(check.kernels[i].state, KernelState::kPassed) << kernels[i]->name << ": " << check.kernels[i].detail;
  }
}

TEST(KernelRuns, RefusedFormatIsNotApplicableAndNotRun) {
  const Plugin plugin = Plugin::load(kPlugins / "libspmv_host_reference.so", {.forbid_vendor_libraries = false});
  const auto kernels = kernels_of(plugin);
  CheckOptions options = on_host(3);
  options.limits.max_bytes = 1 << 16;
  // The arrow's dense row pads ELL to 2000 x 2000 slots, and the first
  // SELL slice to 32 x 2000: both far over 64 KiB.
  const MatrixCheck check = check_matrix(gen::arrow(2000, 5), kernels, options);
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const bool padded = kernels[i]->format == SPMV_FORMAT_ELL || kernels[i]->format == SPMV_FORMAT_SELL;
    EXPECT_EQ(check.kernels[i].state, padded ? KernelState::kNotApplicable : KernelState::kPassed)
        << kernels[i]->name << ": " << check.kernels[i].detail;
  }
  const auto notes = not_applicable_notes(check, kernels);
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[0].rfind("ell: n/a (ELL of 2000 rows", 0), 0u) << notes[0];
  EXPECT_EQ(notes[1].rfind("sell: n/a (SELL-C-sigma (C = 32, sigma = 256) of 2000 rows", 0), 0u) << notes[1];
}

class FakeSubmission : public testing::TestWithParam<const char*> {};

TEST_P(FakeSubmission, EveryKernelFails) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  const fs::path path = kPlugins / "fakes" / (std::string("libspmv_fake_") + GetParam() + ".so");
  const Plugin plugin = Plugin::load(path, {.forbid_vendor_libraries = false});
  const auto kernels = kernels_of(plugin);
  const MatrixCheck check = check_matrix(random_matrix(seed), kernels, on_host(seed));
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    EXPECT_EQ(check.kernels[i].state, KernelState::kFailed) << kernels[i]->name;
    EXPECT_FALSE(check.kernels[i].detail.empty()) << kernels[i]->name;
  }
  EXPECT_EQ(check.problems.size(), kernels.size());
  for (const auto& problem : check.problems) EXPECT_NE(problem.find(" FAILED: "), std::string::npos) << problem;
}

// y is poisoned before each launch, so a row the kernel never writes is
// told apart from a wrong one.
TEST(KernelRuns, UnwrittenRowIsSeenAsUnwritten) {
  const std::uint64_t seed = test::fresh_seed();
  SCOPED_TRACE(test::seed_note(seed));
  const Plugin plugin =
      Plugin::load(kPlugins / "fakes" / "libspmv_fake_unwritten_row.so", {.forbid_vendor_libraries = false});
  const auto kernels = kernels_of(plugin);
  const MatrixCheck check = check_matrix(random_matrix(seed), kernels, on_host(seed));
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    EXPECT_NE(check.kernels[i].detail.find("never written"), std::string::npos)
        << kernels[i]->name << ": " << check.kernels[i].detail;
  }
}

// The faults that misbehave inside the launch and return (the crashing and
// hanging ones need the grader's child processes, not this check).
INSTANTIATE_TEST_SUITE_P(Faults, FakeSubmission,
                         testing::Values("wrong_element", "unwritten_row", "doubled", "not_implemented",
                                         "launch_error"));

}  // namespace
}  // namespace spmv::ta
