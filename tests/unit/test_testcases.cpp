// The case folders shipped in testcases/: each loads, each file parses into
// a valid matrix, each generator spec parses. Generating the large cases is
// left to `spmv-cases validate`; this keeps the unit tests fast.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "spmv/core/cases.hpp"
#include "spmv/core/formats.hpp"
#include "spmv/core/generators.hpp"
#include "spmv/core/matrix_market.hpp"

namespace spmv {
namespace {

namespace fs = std::filesystem;

const fs::path kTestcases = fs::path(SPMV_SOURCE_DIR) / "testcases";

class ShippedCaseFolder : public ::testing::TestWithParam<const char*> {};

TEST_P(ShippedCaseFolder, EveryCaseLoadsAndIsExplained) {
  const fs::path dir = kTestcases / GetParam();
  std::vector<TestCase> cases;
  ASSERT_NO_THROW(cases = load_cases(dir));
  ASSERT_FALSE(cases.empty()) << dir << " holds no case";
  for (const TestCase& test_case : cases) {
    SCOPED_TRACE(test_case.origin + " (case " + test_case.name + ")");
    EXPECT_FALSE(test_case.why.empty()) << "every shipped case needs a `why` line in " << dir / kCaseManifestName;
    if (test_case.file.empty()) {
      EXPECT_NO_THROW(gen::parse_spec(test_case.generator));
      continue;
    }
    try {
      read_matrix_market(test_case.file).validate();
    } catch (const std::exception& error) {
      ADD_FAILURE() << error.what();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Testcases, ShippedCaseFolder, ::testing::Values("public", "edge", "hidden.example", "large"),
                         [](const ::testing::TestParamInfo<const char*>& param_info) {
                           std::string name = param_info.param;
                           std::replace(name.begin(), name.end(), '.', '_');
                           return name;
                         });

TEST(ShippedCases, PublicFolderStaysSmall) {
  std::uintmax_t bytes = 0;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(kTestcases / "public")) {
    if (entry.is_regular_file()) {
      bytes += entry.file_size();
    }
  }
  // Students clone it; large matrices belong in generator specs.
  EXPECT_LT(bytes, std::uintmax_t{5} << 20) << "testcases/public holds " << bytes << " bytes";
}

void expect_csr(const fs::path& file, const std::vector<index_t>& row_ptr, const std::vector<index_t>& col_idx,
                const std::vector<value_t>& values) {
  SCOPED_TRACE(file.string());
  const CsrMatrix a = read_matrix_market(file);
  EXPECT_EQ(a.rows, 4);
  EXPECT_EQ(a.cols, 4);
  EXPECT_EQ(a.row_ptr, row_ptr);
  EXPECT_EQ(a.col_idx, col_idx);
  EXPECT_EQ(a.values, values);
}

TEST(ShippedCases, WorkedExamplesMatchTheCourseMaterial) {
  // Textbook figure 14.1: row 0: 1 7 . . / row 1: 5 . 3 9 / row 2: . 2 8 . / row 3: . . . 6
  expect_csr(kTestcases / "public" / "textbook_fig14_1.mtx", {0, 2, 5, 7, 8}, {0, 1, 0, 2, 3, 1, 2, 3},
             {1, 7, 5, 3, 9, 2, 8, 6});
  // Teaching Kit module 10: 3 0 1 0 / 0 0 0 0 / 0 2 4 1 / 1 0 0 1
  expect_csr(kTestcases / "public" / "teaching_kit_4x4.mtx", {0, 2, 2, 5, 7}, {0, 2, 1, 2, 3, 0, 3},
             {3, 1, 2, 4, 1, 1, 1});
}

}  // namespace
}  // namespace spmv
