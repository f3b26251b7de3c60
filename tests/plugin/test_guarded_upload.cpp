// Matrix arrays between guard zones (spmv/memory/buffer.hpp), in host
// memory: the view points at the values, a read just past an array finds
// NaN (values) or -1 (indices), a write there is seen, and an empty array
// stays null.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "random_csr.hpp"
#include "spmv/core/convert.hpp"
#include "spmv/memory/format_views.hpp"

namespace spmv {
namespace {

std::vector<std::uint32_t> bits_of(const std::vector<float>& values) {
  std::vector<std::uint32_t> bits;
  for (const float value : values) bits.push_back(std::bit_cast<std::uint32_t>(value));
  return bits;
}

#define TRACE_SEED(seed) SCOPED_TRACE(::testing::Message() << "seed " << (seed) << " (replay: SPMV_TEST_SEED)")

TEST(GuardedUpload, ViewsPointAtTheValuesBetweenGuards) {
  const std::uint64_t seed = test::fresh_seed();
  TRACE_SEED(seed);
  std::mt19937_64 rng(seed);
  const CsrMatrix a = test::random_csr(rng, {.rows = 300, .cols = 400});
  ASSERT_GT(a.nnz(), 0);
  const std::size_t guard = 2 * std::uniform_int_distribution<std::size_t>(1, 300)(rng);
  const FormatBuffers<CsrMatrix> b = upload(MemorySpace::kHost, a, guard);
  EXPECT_EQ(b.array<&CsrMatrix::row_ptr>().download(), a.row_ptr);
  EXPECT_EQ(b.array<&CsrMatrix::col_idx>().download(), a.col_idx);
  const Buffer<float>& values = b.array<&CsrMatrix::values>();
  EXPECT_EQ(bits_of(values.download()), bits_of(a.values));
  EXPECT_EQ(b.view.values, values.data());
  for (std::size_t k = 1; k <= guard; ++k) {
    const auto before = static_cast<std::ptrdiff_t>(k);
    EXPECT_TRUE(std::isnan(b.view.values[a.nnz() - 1 + before])) << "past values by " << k;
    EXPECT_TRUE(std::isnan(b.view.values[-before])) << "before values by " << k;
    EXPECT_EQ(b.view.col_idx[a.nnz() - 1 + before], -1) << "past col_idx by " << k;
    EXPECT_EQ(b.view.row_ptr[a.rows + before], -1) << "past row_ptr by " << k;
  }
  EXPECT_TRUE(values.guards_intact());
  EXPECT_TRUE(b.array<&CsrMatrix::col_idx>().guards_intact());
}

TEST(GuardedUpload, AWriteInAGuardIsSeen) {
  const std::uint64_t seed = test::fresh_seed();
  TRACE_SEED(seed);
  std::mt19937_64 rng(seed);
  const CsrMatrix a = test::random_csr(rng, {.rows = 100, .cols = 120});
  const FormatBuffers<CsrMatrix> b = upload(MemorySpace::kHost, a, 64);
  const Buffer<float>& values = b.array<&CsrMatrix::values>();
  const auto where = std::uniform_int_distribution<int>(1, 64)(rng);
  const bool after = (rng() & 1) != 0;
  const std::ptrdiff_t at = after ? a.nnz() - 1 + where : -where;
  values.data()[at] = 1.0F;
  EXPECT_FALSE(values.guards_intact()) << (after ? "after" : "before") << " the values, word " << where;
  values.data()[at] = std::bit_cast<float>(kValueGuardBits);
  EXPECT_TRUE(values.guards_intact());
  EXPECT_EQ(bits_of(values.download()), bits_of(a.values)) << "the values themselves are untouched";
}

TEST(GuardedUpload, EmptyArraysStayNullAndOtherFormatsAreGuardedToo) {
  const std::uint64_t seed = test::fresh_seed();
  TRACE_SEED(seed);
  std::mt19937_64 rng(seed);
  CsrMatrix empty;
  empty.rows = 5;
  empty.cols = 7;
  empty.row_ptr.assign(6, 0);
  const FormatBuffers<CsrMatrix> b = upload(MemorySpace::kHost, empty, 128);
  EXPECT_EQ(b.view.col_idx, nullptr);
  EXPECT_EQ(b.view.values, nullptr);
  EXPECT_NE(b.view.row_ptr, nullptr);

  const CsrMatrix a = test::random_csr(rng, {.rows = 200, .cols = 250});
  const JdsMatrix jds = to_jds(a);
  const FormatBuffers<JdsMatrix> j = upload(MemorySpace::kHost, jds, 32);
  EXPECT_EQ(j.array<&JdsMatrix::row_perm>().download(), jds.row_perm);
  EXPECT_EQ(j.view.row_perm[jds.rows], -1) << "a row permutation read past its end names row -1";
  EXPECT_TRUE(std::isnan(j.view.values[jds.nnz()])) << "past the JDS values";
  const EllMatrix ell = to_ell(a);
  const FormatBuffers<EllMatrix> e = upload(MemorySpace::kHost, ell, 32);
  EXPECT_EQ(e.view.row_length[ell.rows], -1);
  EXPECT_EQ(e.array<&EllMatrix::col_idx>().download(), ell.col_idx);
}

// The runner names the arrays it compares after a launch as the table names
// the members, a HYB part's after the part; SELL's identity order is a NULL
// row_perm in the view.
TEST(GuardedUpload, ArraysGoByTheirMembersNames) {
  const std::uint64_t seed = test::fresh_seed();
  TRACE_SEED(seed);
  std::mt19937_64 rng(seed);
  const CsrMatrix a = test::random_csr(rng, {.rows = 150, .cols = 180});
  const auto names_of = [](const auto& buffers, const auto& matrix) {
    std::vector<std::string> names;
    buffers.for_each_array(matrix, [&names](const std::string& name, const auto& /*buffer*/, const auto& /*host*/) {
      names.push_back(name);
    });
    return names;
  };
  HybOptions options;
  options.ell_width = 1;
  const HybMatrix hyb = to_hyb(a, options);
  ASSERT_GT(hyb.coo.nnz(), 0);
  const FormatBuffers<HybMatrix> h = upload(MemorySpace::kHost, hyb, 32);
  EXPECT_EQ(names_of(h, hyb), (std::vector<std::string>{"ell.row_length", "ell.col_idx", "ell.values", "coo.row_idx",
                                                        "coo.col_idx", "coo.values"}));
  EXPECT_TRUE(std::isnan(h.view.coo.values[hyb.coo.nnz()])) << "past the COO part's values";

  const SellMatrix sell = to_sell(a, SellParams{.slice_height = 2, .sort_window = 1});
  ASSERT_TRUE(sell.row_perm.empty());
  const FormatBuffers<SellMatrix> s = upload(MemorySpace::kHost, sell, 32);
  EXPECT_EQ(names_of(s, sell), (std::vector<std::string>{"slice_ptr", "row_perm", "col_idx", "values"}));
  EXPECT_EQ(s.view.row_perm, nullptr);
  EXPECT_EQ(s.view.slice_ptr[s.view.slices + 1], -1) << "past slice_ptr, 64-bit";
}

}  // namespace
}  // namespace spmv
