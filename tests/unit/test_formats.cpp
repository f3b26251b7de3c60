// validate(): every container accepts its valid forms and rejects each
// broken invariant with a message naming the first violation.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <utility>

#include "sparse_test_support.hpp"
#include "spmv/core/formats.hpp"

namespace spmv {
namespace {

using test::TeachingKit;
using test::TextbookFigure14_1;

template <typename Matrix>
void expect_rejected(const Matrix& valid, const std::function<void(Matrix&)>& corrupt, const std::string& expected) {
  Matrix broken = valid;
  corrupt(broken);
  try {
    broken.validate();
    ADD_FAILURE() << "accepted; expected a FormatError with \"" << expected << "\"";
  } catch (const FormatError& error) {
    EXPECT_NE(std::string(error.what()).find(expected), std::string::npos)
        << "expected \"" << expected << "\" in: " << error.what();
  }
}

TEST(FormatsValidate, AcceptsTheWorkedExamples) {
  EXPECT_NO_THROW(TeachingKit::csr().validate());
  EXPECT_NO_THROW(TeachingKit::coo().validate());
  EXPECT_NO_THROW(TeachingKit::ell().validate());
  EXPECT_NO_THROW(TeachingKit::hyb_width_2().validate());
  EXPECT_NO_THROW(TeachingKit::jds().validate());
  EXPECT_NO_THROW(TeachingKit::sell_c2_sigma4().validate());
  EXPECT_NO_THROW(TeachingKit::sell_c2_sigma1().validate());
  EXPECT_NO_THROW(TextbookFigure14_1::csr().validate());
  EXPECT_NO_THROW(TextbookFigure14_1::coo().validate());
  EXPECT_NO_THROW(TextbookFigure14_1::ell().validate());
  EXPECT_NO_THROW(TextbookFigure14_1::hyb_width_2().validate());
  EXPECT_NO_THROW(TextbookFigure14_1::jds().validate());
  EXPECT_NO_THROW(TextbookFigure14_1::sell_c2_sigma4().validate());
}

TEST(FormatsValidate, AcceptsEmptyContainers) {
  EXPECT_NO_THROW(CsrMatrix{}.validate());
  EXPECT_NO_THROW(CooMatrix{}.validate());
  EXPECT_NO_THROW(EllMatrix{}.validate());
  EXPECT_NO_THROW(HybMatrix{}.validate());
  EXPECT_NO_THROW(JdsMatrix{}.validate());
  EXPECT_NO_THROW(SellMatrix{}.validate());
  // Rows without entries: JDS has no diagonal, ELL width 0, SELL slices of
  // width 0 (3 rows in slices of 2: two slices).
  EXPECT_NO_THROW((CsrMatrix{3, 2, {0, 0, 0, 0}, {}, {}}.validate()));
  EXPECT_NO_THROW((EllMatrix{3, 2, 0, {0, 0, 0}, {}, {}}.validate()));
  EXPECT_NO_THROW((JdsMatrix{3, 2, {0, 1, 2}, {0}, {}, {}}.validate()));
  EXPECT_NO_THROW((SellMatrix{3, 2, 0, 2, 4, {0, 0, 0}, {}, {}, {}}.validate()));
}

TEST(FormatsValidate, EllPaddingMayExceedTheLongestRow) {
  EllMatrix wide = TeachingKit::ell();
  wide.width = 4;
  wide.col_idx.insert(wide.col_idx.end(), 4, EllMatrix::kPaddingColumn);
  wide.values.insert(wide.values.end(), 4, 0.0F);
  EXPECT_NO_THROW(wide.validate());
  EXPECT_EQ(wide.nnz(), 7);
}

// Teaching-kit CSR: row_ptr {0,2,2,5,7}, col_idx {0,2, 1,2,3, 0,3}.
TEST(FormatsValidate, CsrRejectsEachBrokenInvariant) {
  const CsrMatrix a = TeachingKit::csr();
  expect_rejected<CsrMatrix>(
      a, [](auto& m) { m.rows = -1; }, "CSR: negative rows (-1)");
  expect_rejected<CsrMatrix>(
      a, [](auto& m) { m.cols = -2; }, "CSR: negative cols (-2)");
  expect_rejected<CsrMatrix>(
      a, [](auto& m) { m.row_ptr.pop_back(); }, "CSR: row_ptr has 4 entries, expected rows + 1 = 5");
  expect_rejected<CsrMatrix>(
      a, [](auto& m) { m.values.pop_back(); }, "CSR: values has 6 entries, expected the size of col_idx = 7");
  expect_rejected<CsrMatrix>(
      a, [](auto& m) { m.row_ptr[0] = 1; }, "CSR: row_ptr[0] = 1, expected 0");
  expect_rejected<CsrMatrix>(
      a, [](auto& m) { m.row_ptr[2] = 6; }, "CSR: row_ptr[2] = 6 > row_ptr[3] = 5");
  expect_rejected<CsrMatrix>(
      a, [](auto& m) { m.row_ptr[4] = 6; }, "CSR: row_ptr[4] = 6, expected nnz = 7");
  expect_rejected<CsrMatrix>(
      a, [](auto& m) { m.col_idx[3] = 4; }, "CSR: row 2: column 4 at entry 3 is outside [0, 4)");
  expect_rejected<CsrMatrix>(
      a, [](auto& m) { m.col_idx[0] = -1; }, "CSR: row 0: column -1 at entry 0 is outside [0, 4)");
  expect_rejected<CsrMatrix>(
      a, [](auto& m) { m.col_idx[3] = 0; },
      "CSR: row 2 columns not increasing: column 0 at entry 3 follows column 1 at entry 2");
  expect_rejected<CsrMatrix>(
      a, [](auto& m) { m.col_idx[3] = 1; }, "CSR: row 2 holds column 1 twice (entry 2 and entry 3)");
}

// Teaching-kit COO: row_idx {0,0,2,2,2,3,3}, col_idx {0,2,1,2,3,0,3}.
TEST(FormatsValidate, CooRejectsEachBrokenInvariant) {
  const CooMatrix a = TeachingKit::coo();
  expect_rejected<CooMatrix>(
      a, [](auto& m) { m.rows = -4; }, "COO: negative rows (-4)");
  expect_rejected<CooMatrix>(
      a, [](auto& m) { m.col_idx.pop_back(); }, "COO: col_idx has 6 entries, expected the size of row_idx = 7");
  expect_rejected<CooMatrix>(
      a, [](auto& m) { m.values.push_back(1); }, "COO: values has 8 entries, expected the size of row_idx = 7");
  expect_rejected<CooMatrix>(
      a, [](auto& m) { m.row_idx[6] = 4; }, "COO: entry 6 has row 4, outside [0, 4)");
  expect_rejected<CooMatrix>(
      a, [](auto& m) { m.col_idx[5] = 7; }, "COO: row 3: column 7 at entry 5 is outside [0, 4)");
  expect_rejected<CooMatrix>(
      a, [](auto& m) { m.row_idx[5] = 1; }, "COO: entries not sorted by row at entry 5: row 1 follows row 2");
  expect_rejected<CooMatrix>(
      a, [](auto& m) { std::swap(m.col_idx[2], m.col_idx[3]); },
      "COO: row 2 columns not increasing: column 1 at entry 3 follows column 2 at entry 2");
  expect_rejected<CooMatrix>(
      a, [](auto& m) { m.col_idx[1] = 0; }, "COO: row 0 holds column 0 twice (entry 0 and entry 1)");
}

// Teaching-kit ELL, width 3, row_length {2,0,3,2}; slot k of row r at 4k + r:
//   col_idx {0,-1,1,0, 2,-1,2,3, -1,-1,3,-1}.
TEST(FormatsValidate, EllRejectsEachBrokenInvariant) {
  const EllMatrix a = TeachingKit::ell();
  expect_rejected<EllMatrix>(
      a, [](auto& m) { m.width = -1; }, "ELL: negative width (-1)");
  expect_rejected<EllMatrix>(
      a, [](auto& m) { m.cols = -1; }, "ELL: negative cols (-1)");
  expect_rejected<EllMatrix>(
      a, [](auto& m) { m.row_length.pop_back(); }, "ELL: row_length has 3 entries, expected rows = 4");
  expect_rejected<EllMatrix>(
      a, [](auto& m) { m.col_idx.pop_back(); }, "ELL: col_idx has 11 entries, expected rows x width = 4 x 3 = 12");
  expect_rejected<EllMatrix>(
      a, [](auto& m) { m.values.pop_back(); }, "ELL: values has 11 entries, expected rows x width = 4 x 3 = 12");
  expect_rejected<EllMatrix>(
      a, [](auto& m) { m.row_length[1] = 4; }, "ELL: row_length[1] = 4 exceeds width 3");
  expect_rejected<EllMatrix>(
      a, [](auto& m) { m.row_length[1] = -1; }, "ELL: row_length[1] = -1 is negative");
  expect_rejected<EllMatrix>(
      a, [](auto& m) { m.row_length[3] = 3; }, "ELL: slot 2 of row 3 is padding (column -1) but row_length[3] = 3");
  expect_rejected<EllMatrix>(
      a, [](auto& m) { m.col_idx[m.slot(2, 1)] = 9; }, "ELL: row 2: column 9 at slot 1 is outside [0, 4)");
  expect_rejected<EllMatrix>(
      a, [](auto& m) { m.col_idx[m.slot(2, 1)] = 0; },
      "ELL: row 2 columns not increasing: column 0 at slot 1 follows column 1 at slot 0");
  expect_rejected<EllMatrix>(
      a, [](auto& m) { m.col_idx[m.slot(2, 1)] = 1; }, "ELL: row 2 holds column 1 twice (slot 0 and slot 1)");
  expect_rejected<EllMatrix>(
      a, [](auto& m) { m.row_length[2] = 2; },
      "ELL: slot 2 of row 2 is padding (row_length[2] = 2) but holds column 3, expected -1");
  expect_rejected<EllMatrix>(
      a, [](auto& m) { m.values[m.slot(1, 0)] = 5; }, "ELL: padding slot 0 of row 1 holds value 5, expected 0");
}

// Teaching-kit HYB, ELL width 2 (row_length {2,0,2,2}) + COO {(2, 3)}.
TEST(FormatsValidate, HybRejectsEachBrokenInvariant) {
  const HybMatrix a = TeachingKit::hyb_width_2();
  expect_rejected<HybMatrix>(
      a, [](auto& m) { m.coo.cols = 5; }, "HYB: ELL part is 4 x 4 but COO part is 4 x 5");
  expect_rejected<HybMatrix>(
      a, [](auto& m) { m.ell.row_length[0] = 5; }, "HYB: ELL part: row_length[0] = 5 exceeds width 2");
  expect_rejected<HybMatrix>(
      a, [](auto& m) { m.coo.row_idx[0] = 7; }, "HYB: COO part: entry 0 has row 7, outside [0, 4)");
  expect_rejected<HybMatrix>(
      a,
      [](auto& m) {
        m.ell.row_length[2] = 1;
        m.ell.col_idx[m.ell.slot(2, 1)] = EllMatrix::kPaddingColumn;
        m.ell.values[m.ell.slot(2, 1)] = 0;
      },
      "HYB: row 2 has entries in the COO part (entry 0) but its ELL part is not full: "
      "row_length[2] = 1 < width 2");
  expect_rejected<HybMatrix>(
      a, [](auto& m) { m.coo.col_idx[0] = 2; },
      "HYB: row 2: COO entry 0 has column 2, not after the row's last ELL "
      "column 2");
}

// Teaching-kit JDS: row_perm {2,0,3,1}, jd_ptr {0,3,6,7},
// col_idx {1,0,0, 2,2,3, 3}.
TEST(FormatsValidate, JdsRejectsEachBrokenInvariant) {
  const JdsMatrix a = TeachingKit::jds();
  expect_rejected<JdsMatrix>(
      a, [](auto& m) { m.rows = -1; }, "JDS: negative rows (-1)");
  expect_rejected<JdsMatrix>(
      a, [](auto& m) { m.row_perm.pop_back(); }, "JDS: row_perm has 3 entries, expected rows = 4");
  expect_rejected<JdsMatrix>(
      a, [](auto& m) { m.jd_ptr.clear(); }, "JDS: jd_ptr is empty");
  expect_rejected<JdsMatrix>(
      a, [](auto& m) { m.values.pop_back(); }, "JDS: values has 6 entries, expected the size of col_idx = 7");
  expect_rejected<JdsMatrix>(
      a, [](auto& m) { m.jd_ptr[0] = 1; }, "JDS: jd_ptr[0] = 1, expected 0");
  expect_rejected<JdsMatrix>(
      a, [](auto& m) { m.jd_ptr[2] = 2; }, "JDS: jd_ptr[1] = 3 > jd_ptr[2] = 2");
  expect_rejected<JdsMatrix>(
      a, [](auto& m) { m.jd_ptr[2] = 3; }, "JDS: diagonal 1 is empty");
  expect_rejected<JdsMatrix>(
      a, [](auto& m) { m.jd_ptr[1] = 2; },
      "JDS: diagonal 1 longer than diagonal 0 (4 > 2 entries): rows not sorted by decreasing "
      "length");
  expect_rejected<JdsMatrix>(
      a, [](auto& m) { m.jd_ptr[1] = 5; }, "JDS: diagonal 0 has 5 entries, more than rows = 4");
  expect_rejected<JdsMatrix>(
      a, [](auto& m) { m.jd_ptr.pop_back(); }, "JDS: jd_ptr[2] = 6, expected nnz = 7");
  expect_rejected<JdsMatrix>(
      a, [](auto& m) { m.row_perm[1] = 4; }, "JDS: row_perm[1] = 4 is outside [0, 4)");
  expect_rejected<JdsMatrix>(
      a, [](auto& m) { m.row_perm[3] = 2; }, "JDS: row_perm is not a permutation: row 2 appears at positions 0 and 3");
  expect_rejected<JdsMatrix>(
      a, [](auto& m) { std::swap(m.row_perm[1], m.row_perm[2]); },
      "JDS: sorted rows 1 and 2 both have 2 entries but hold rows 3 and 0");
  expect_rejected<JdsMatrix>(
      a, [](auto& m) { m.col_idx[6] = 4; }, "JDS: row 2: column 4 at diagonal 2 (entry 6) is outside [0, 4)");
  expect_rejected<JdsMatrix>(
      a, [](auto& m) { m.col_idx[3] = 0; },
      "JDS: row 2 columns not increasing: column 0 at diagonal 1 follows column 1 at diagonal 0");
  expect_rejected<JdsMatrix>(
      a, [](auto& m) { m.col_idx[5] = 0; }, "JDS: row 3 holds column 0 twice (diagonal 0 and diagonal 1)");
}

// Teaching-kit SELL, C = 2, sigma = 4: slice_ptr {0,6,10}, row_perm
// {2,0,3,1}; slice 0 holds rows 2 (columns 1 2 3) and 0 (0 2) in slots
// {1,0, 2,2, 3,-1}, slice 1 rows 3 (0 3) and 1 (empty) in {0,-1, 3,-1}.
TEST(FormatsValidate, SellRejectsBrokenShapeAndParameters) {
  const SellMatrix a = TeachingKit::sell_c2_sigma4();
  expect_rejected<SellMatrix>(
      a, [](auto& m) { m.rows = -1; }, "SELL: negative rows (-1)");
  expect_rejected<SellMatrix>(
      a, [](auto& m) { m.cols = -1; }, "SELL: negative cols (-1)");
  expect_rejected<SellMatrix>(
      a, [](auto& m) { m.slice_height = 0; }, "SELL: slice_height 0 is outside [1, 1024]");
  expect_rejected<SellMatrix>(
      a, [](auto& m) { m.slice_height = 1025; }, "SELL: slice_height 1025 is outside [1, 1024]");
  expect_rejected<SellMatrix>(
      a, [](auto& m) { m.sort_window = 0; }, "SELL: sort_window 0 is below 1");
  expect_rejected<SellMatrix>(
      a, [](auto& m) { m.nnz = -1; }, "SELL: negative nnz (-1)");
  expect_rejected<SellMatrix>(
      a, [](auto& m) { m.nnz = 6; }, "SELL: nnz = 6 but the slots hold 7 entries");
}

TEST(FormatsValidate, SellRejectsBrokenSlices) {
  const SellMatrix a = TeachingKit::sell_c2_sigma4();
  expect_rejected<SellMatrix>(
      a, [](auto& m) { m.slice_ptr.pop_back(); },
      "SELL: slice_ptr has 2 entries, expected ceil(rows / slice_height) + 1 = ceil(4 / 2) + 1 "
      "= 3");
  expect_rejected<SellMatrix>(
      a, [](auto& m) { m.slice_height = 1; },
      "SELL: slice_ptr has 3 entries, expected ceil(rows / slice_height) + 1 = ceil(4 / 1) + 1 "
      "= 5");
  expect_rejected<SellMatrix>(
      a, [](auto& m) { m.slice_ptr[0] = 2; }, "SELL: slice_ptr[0] = 2, expected 0");
  expect_rejected<SellMatrix>(
      a, [](auto& m) { m.slice_ptr[2] = 4; }, "SELL: slice_ptr[1] = 6 > slice_ptr[2] = 4");
  expect_rejected<SellMatrix>(
      a, [](auto& m) { m.slice_ptr[1] = 5; }, "SELL: slice 0 holds 5 slots, not a multiple of slice_height 2");
  expect_rejected<SellMatrix>(
      a, [](auto& m) { m.cols = 2; }, "SELL: slice 0 is 3 slots wide, more than cols = 2");
  expect_rejected<SellMatrix>(
      a, [](auto& m) { m.col_idx.push_back(-1); }, "SELL: col_idx has 11 entries, expected slice_ptr[slices] = 10");
  expect_rejected<SellMatrix>(
      a, [](auto& m) { m.values.pop_back(); }, "SELL: values has 9 entries, expected slice_ptr[slices] = 10");
  expect_rejected<SellMatrix>(
      a,
      [](auto& m) {
        m.slice_ptr[2] = 12;  // slice 1 one slot wider: two more padding slots
        m.col_idx.insert(m.col_idx.end(), 2, SellMatrix::kPaddingColumn);
        m.values.insert(m.values.end(), 2, 0.0F);
      },
      "SELL: slice 1 is 3 slots wide but its longest row has 2 entries");
}

TEST(FormatsValidate, SellRejectsBrokenPermutations) {
  const SellMatrix a = TeachingKit::sell_c2_sigma4();
  expect_rejected<SellMatrix>(
      a, [](auto& m) { m.row_perm.pop_back(); },
      "SELL: row_perm has 3 entries, expected rows (or 0 for the identity) = 4");
  expect_rejected<SellMatrix>(
      a, [](auto& m) { m.row_perm[1] = 4; }, "SELL: row_perm[1] = 4 is outside [0, 4)");
  expect_rejected<SellMatrix>(
      a, [](auto& m) { m.row_perm[3] = 2; }, "SELL: row_perm is not a permutation: row 2 appears at positions 0 and 3");
  expect_rejected<SellMatrix>(
      a, [](auto& m) { m.sort_window = 2; },
      "SELL: row_perm[0] = 2 lies outside the sorting window of position 0 (rows 0 .. 1)");
  expect_rejected<SellMatrix>(
      TeachingKit::sell_c2_sigma1(),
      [](auto& m) {
        m.row_perm = {0, 1, 2, 3};
      },
      "SELL: row_perm is the identity: it must then be empty");
}

TEST(FormatsValidate, SellRejectsBrokenRowOrder) {
  // Without row_perm, a window of 4 holds rows of 2, 0, 3, 2 entries.
  expect_rejected<SellMatrix>(
      TeachingKit::sell_c2_sigma1(), [](auto& m) { m.sort_window = 4; },
      "SELL: positions 1 and 2 hold rows 1 (0 entries) and 2 (3 entries) in one window of 4 rows: "
      "rows not sorted by decreasing length (row_perm is empty");
  // Rows 0 and 3 (2 entries each) swapped, with their slots.
  expect_rejected<SellMatrix>(
      TeachingKit::sell_c2_sigma4(),
      [](auto& m) {
        m.row_perm = {2, 3, 0, 1};
        m.col_idx = {1, 0, 2, 3, 3, -1, 0, -1, 2, -1};
        m.values = {2, 1, 4, 1, 1, 0, 3, 0, 1, 0};
      },
      "SELL: positions 1 and 2 both have 2 entries but hold rows 3 and 0: rows of equal length "
      "must keep their original order");
}

TEST(FormatsValidate, SellRejectsBrokenSlots) {
  const SellMatrix a = TeachingKit::sell_c2_sigma4();
  expect_rejected<SellMatrix>(
      a, [](auto& m) { m.values[5] = 1.0F; },
      "SELL: padding slot 2 of position 1 (element 5) holds value 1, expected 0");
  expect_rejected<SellMatrix>(
      a,
      [](auto& m) {
        m.col_idx[9] = 2;  // slot 1 of position 3 (row 1), after its padding slot 0
        m.values[9] = 5.0F;
      },
      "SELL: row 1: column 2 at slot 1 follows padding at slot 0");
  expect_rejected<SellMatrix>(
      a, [](auto& m) { m.col_idx[0] = 4; }, "SELL: row 2: column 4 at slot 0 (element 0) is outside [0, 4)");
  expect_rejected<SellMatrix>(
      a, [](auto& m) { m.col_idx[2] = 0; },
      "SELL: row 2 columns not increasing: column 0 at slot 1 follows column 1 at slot 0");
  expect_rejected<SellMatrix>(
      a, [](auto& m) { m.col_idx[2] = 1; }, "SELL: row 2 holds column 1 twice (slot 0 and slot 1)");
  // One row in a slice of 2: position 1 lies past the last row.
  const SellMatrix one_row{1, 2, 1, 2, 1, {0, 2}, {}, {0, -1}, {5, 0}};
  ASSERT_NO_THROW(one_row.validate());
  expect_rejected<SellMatrix>(
      one_row,
      [](auto& m) {
        m.col_idx[1] = 1;
        m.values[1] = 1.0F;
      },
      "SELL: slot 0 of position 1 (element 1) holds column 1 but the matrix has 1 rows: positions "
      "past the last row are all padding");
}

}  // namespace
}  // namespace spmv
