// Every format of the format table (spmv/core/format_table.hpp), by type:
// a format added to the table is converted, validated, multiplied and
// looked up here with no change to this file.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "sparse_test_support.hpp"
#include "spmv/core/convert.hpp"
#include "spmv/core/cpu_spmv.hpp"
#include "spmv/core/format_table.hpp"
#include "spmv/core/golden.hpp"
#include "spmv/core/tolerance.hpp"

namespace spmv {
namespace {

template <typename Matrix>
class FormatTableTest : public ::testing::Test {
 protected:
  using Traits = FormatTraits<Matrix>;

  static CsrMatrix fresh_matrix(std::mt19937_64& rng) {
    return test::fresh_table_matrix(rng, {.rows = 1500, .cols = 2000, .longest = 300, .half_band = 20});
  }

  // Uniform in [-1, -0.25] U [0.25, 1]: a lost or repeated term shows.
  static std::vector<float> fresh_x(std::mt19937_64& rng, index_t size) {
    std::uniform_real_distribution<float> magnitude(0.25F, 1.0F);
    std::bernoulli_distribution negative(0.5);
    std::vector<float> x(static_cast<std::size_t>(size));
    for (float& value : x) value = negative(rng) ? -magnitude(rng) : magnitude(rng);
    return x;
  }

  static CsrMatrix back_to_csr(const Matrix& form) {
    if constexpr (std::is_same_v<Matrix, CsrMatrix>) {
      return form;
    } else {
      return to_csr(form);
    }
  }
};

TYPED_TEST_SUITE(FormatTableTest, test::AsGtestTypes<FormatTable>::type);

TYPED_TEST(FormatTableTest, ConversionFromCsrIsValidAndRoundTrips) {
  const std::uint64_t seed = test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 4; ++trial) {
    const CsrMatrix csr = TestFixture::fresh_matrix(rng);
    const TypeParam form = TestFixture::Traits::from_csr(csr, ConversionLimits{});
    EXPECT_NO_THROW(form.validate());
    test::expect_same(TestFixture::back_to_csr(form), csr);
  }
}

TYPED_TEST(FormatTableTest, CpuProductMatchesTheGoldenCsrProduct) {
  const std::uint64_t seed = test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 rng(seed);
  for (int trial = 0; trial < 4; ++trial) {
    const CsrMatrix csr = TestFixture::fresh_matrix(rng);
    const std::vector<float> x = TestFixture::fresh_x(rng, csr.cols);
    const TypeParam form = TestFixture::Traits::from_csr(csr, ConversionLimits{});
    const ToleranceVerdict verdict = check_result(csr, x, golden_spmv(csr, x), cpu_spmv(form, x));
    EXPECT_TRUE(verdict.passed) << TestFixture::Traits::name << ": " << verdict.describe();
  }
}

TYPED_TEST(FormatTableTest, WithFormHandsOverTheConversion) {
  const std::uint64_t seed = test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 rng(seed);
  const CsrMatrix csr = TestFixture::fresh_matrix(rng);
  int calls = 0;
  const bool known = with_form(csr, TestFixture::Traits::id, ConversionLimits{}, [&](const auto& form) {
    ++calls;
    if constexpr (std::is_same_v<std::decay_t<decltype(form)>, TypeParam>) {
      test::expect_same(TestFixture::back_to_csr(form), csr);
    } else {
      ADD_FAILURE() << "another format's form";
    }
  });
  EXPECT_TRUE(known);
  EXPECT_EQ(calls, 1);
}

TYPED_TEST(FormatTableTest, TheFormatIsFoundByItsNumberAndName) {
  int visits = 0;
  EXPECT_TRUE(visit_format(TestFixture::Traits::id, [&](auto tag) {
    ++visits;
    EXPECT_TRUE((std::is_same_v<typename decltype(tag)::type, TypeParam>));
  }));
  EXPECT_EQ(visits, 1);
  EXPECT_TRUE(is_format_id(TestFixture::Traits::id));
  EXPECT_STREQ(format_id_name(TestFixture::Traits::id), TestFixture::Traits::name);
}

TYPED_TEST(FormatTableTest, TheByteModelCountsTheArraysAKernelReads) {
  const std::uint64_t seed = test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 rng(seed);
  const CsrMatrix csr = TestFixture::fresh_matrix(rng);
  const TypeParam form = TestFixture::Traits::from_csr(csr, ConversionLimits{});
  const auto bytes = TestFixture::Traits::matrix_bytes(csr, &form);
  ASSERT_TRUE(bytes.has_value());
  // At least each entry's column and value once.
  EXPECT_GE(*bytes, 8 * static_cast<std::uint64_t>(csr.nnz()));
}

TEST(FormatTable, NumbersAndNamesAreDistinctAndOthersUnknown) {
  std::set<int> ids;
  std::set<std::string> names;
  int formats = 0;
  for_each_format([&](auto tag) {
    using Traits = FormatTraits<typename decltype(tag)::type>;
    ++formats;
    ids.insert(Traits::id);
    names.insert(Traits::name);
  });
  EXPECT_EQ(ids.size(), static_cast<std::size_t>(formats));
  EXPECT_EQ(names.size(), static_cast<std::size_t>(formats));
  std::mt19937_64 rng(test::fresh_seed());
  for (int trial = 0; trial < 100; ++trial) {
    const int id = std::uniform_int_distribution<int>(-1000, 1000)(rng);
    EXPECT_EQ(is_format_id(id), ids.contains(id)) << id;
    if (!ids.contains(id)) {
      EXPECT_STREQ(format_id_name(id), "unknown");
    }
  }
  EXPECT_FALSE(with_form(CsrMatrix{}, 0, ConversionLimits{}, [](const auto& /*form*/) { FAIL(); }));
}

// A toy format, to show what the table's static_assert (TableFormat, in
// format_table.hpp) demands of a format added to FormatTable: with every
// piece it qualifies; without its CPU product or its byte model it does not,
// and the table would not compile with it.
template <bool kWithProduct, bool kWithByteModel>
struct ToyMatrix {
  index_t rows = 0;
  void validate() const {}
};
template <bool kWithProduct, bool kWithByteModel>
CsrMatrix to_csr(const ToyMatrix<kWithProduct, kWithByteModel>& toy);
template <bool kWithByteModel>
std::vector<float> cpu_spmv(const ToyMatrix<true, kWithByteModel>& toy, std::span<const float> x);

}  // namespace

template <bool kWithProduct, bool kWithByteModel>
struct FormatTraits<ToyMatrix<kWithProduct, kWithByteModel>> {
  using Toy = ToyMatrix<kWithProduct, kWithByteModel>;
  static constexpr int id = 100;
  static constexpr const char* name = "toy";
  static constexpr const char* label = "TOY";
  static constexpr const char* byte_model = "none";
  static Toy from_csr(const CsrMatrix& /*csr*/, const ConversionLimits& /*limits*/) { return {}; }
  static std::optional<std::uint64_t> matrix_bytes(const CsrMatrix& /*csr*/, const Toy* /*form*/) { return 0; }
  static constexpr auto members = std::tuple{Member{"rows", &Toy::rows}};
};
template <bool kWithProduct>
struct FormatTraits<ToyMatrix<kWithProduct, false>> {
  using Toy = ToyMatrix<kWithProduct, false>;
  static constexpr int id = 101;
  static constexpr const char* name = "toy";
  static constexpr const char* label = "TOY";
  static Toy from_csr(const CsrMatrix& /*csr*/, const ConversionLimits& /*limits*/) { return {}; }
  static std::optional<std::uint64_t> matrix_bytes(const CsrMatrix& /*csr*/, const Toy* /*form*/) { return 0; }
  static constexpr auto members = std::tuple{Member{"rows", &Toy::rows}};
};

namespace {

static_assert(TableFormat<ToyMatrix<true, true>>);
static_assert(!TableFormat<ToyMatrix<false, true>>, "a format without a CPU product must not qualify");
static_assert(!TableFormat<ToyMatrix<true, false>>, "a format without a byte model must not qualify");
static_assert(detail::every_format_complete(FormatList<CsrMatrix, ToyMatrix<true, true>>{}));
static_assert(!detail::every_format_complete(FormatList<CsrMatrix, ToyMatrix<false, true>>{}));
// A format's members are its own container's.
static_assert(detail::is_member_table<std::remove_cvref_t<decltype(FormatTraits<CsrMatrix>::members)>, CsrMatrix>);
static_assert(!detail::is_member_table<std::remove_cvref_t<decltype(FormatTraits<CooMatrix>::members)>, CsrMatrix>,
              "the members of another container must not qualify");

// Every format of the catalog (spmv/contract/catalog.h, whose numbers
// plugin.h's enumerators take) under its name and number: a format whose
// container names itself otherwise fails here.
TEST(FormatTable, HoldsEveryFormatOfTheCatalog) {
  int catalog_formats = 0;
#define SPMV_CATALOG_FORMAT(name, NAME, Name, number) \
  ++catalog_formats;                                  \
  EXPECT_STREQ(format_id_name(number), #name) << "SPMV_FORMAT_" #NAME;
  SPMV_FORMATS(SPMV_CATALOG_FORMAT)
#undef SPMV_CATALOG_FORMAT
  int table_formats = 0;
  for_each_format([&](auto /*tag*/) { ++table_formats; });
  EXPECT_GT(catalog_formats, 0);
  EXPECT_EQ(table_formats, catalog_formats) << "the table holds a format the catalog does not number";
}

// The numbers plugins already built know the formats by: the plugin ABI is
// binary-compatible, so a number is never changed or given to another
// format.
TEST(FormatTable, KeepsTheNumbersOfThePluginAbi) {
  const std::vector<std::pair<int, std::string>> released{{1, "coo"}, {2, "csr"}, {3, "ell"},
                                                          {4, "hyb"}, {5, "jds"}, {6, "sell"}};
  for (const auto& [number, name] : released) EXPECT_EQ(format_id_name(number), name) << "number " << number;
}

}  // namespace
}  // namespace spmv
