// Matrix images (spmv/runner/matrix_image.hpp), as the grader writes them and
// a runner reads them back: empty arrays included, as in a HYB whose rows
// all fit its ELL part (no COO entry) or a case's shape image (a CSR with no
// entry).
#include <gtest/gtest.h>

#include <unistd.h>

#include <variant>

#include "spmv/core/formats.hpp"
#include "spmv/runner/matrix_image.hpp"

namespace spmv::runner {
namespace {

AnyMatrix round_trip(const AnyMatrix& matrix) {
  const int fd = write_matrix_image(matrix);
  AnyMatrix back = read_matrix_image(fd);
  ::close(fd);
  return back;
}

TEST(MatrixImage, HybWithAnEmptyCooPartReadsBack) {
  CsrMatrix csr;
  csr.rows = 2;
  csr.cols = 3;
  csr.row_ptr = {0, 1, 2};
  csr.col_idx = {0, 2};
  csr.values = {1.0F, 2.0F};
  HybOptions options;
  options.ell_width = 1;
  const HybMatrix hyb = to_hyb(csr, options);
  ASSERT_EQ(hyb.coo.nnz(), 0);

  const AnyMatrix back = round_trip(hyb);
  ASSERT_TRUE(std::holds_alternative<HybMatrix>(back));
  const auto& read = std::get<HybMatrix>(back);
  EXPECT_EQ(read.ell.col_idx, hyb.ell.col_idx);
  EXPECT_EQ(read.ell.values, hyb.ell.values);
  EXPECT_EQ(read.coo.nnz(), 0);
  EXPECT_EQ(read.rows(), 2);
  EXPECT_EQ(read.cols(), 3);
}

TEST(MatrixImage, CsrWithoutEntriesReadsBack) {
  CsrMatrix empty;
  empty.rows = 4;
  empty.cols = 5;
  empty.row_ptr.assign(5, 0);
  const AnyMatrix back = round_trip(empty);
  ASSERT_TRUE(std::holds_alternative<CsrMatrix>(back));
  const auto& read = std::get<CsrMatrix>(back);
  EXPECT_EQ(read.rows, 4);
  EXPECT_EQ(read.cols, 5);
  EXPECT_EQ(read.row_ptr, empty.row_ptr);
  EXPECT_TRUE(read.col_idx.empty());
}

}  // namespace
}  // namespace spmv::runner
