// Matrix images (spmv/runner/matrix_image.hpp), as the grader writes them and
// a runner reads them back: empty arrays included, as in a HYB whose rows
// all fit its ELL part (no COO entry) or a case's shape image (a CSR with no
// entry); and the runner's cache of the images it has read
// (spmv/runner/image_cache.hpp).
#include <gtest/gtest.h>

#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <ctime>
#include <random>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include "fresh_seed.hpp"
#include "spmv/core/formats.hpp"
#include "spmv/runner/image_cache.hpp"
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

// A CSR of fresh random entries: `rows` rows of up to 8 entries.
CsrMatrix random_csr(std::mt19937_64& random, index_t rows) {
  CsrMatrix csr;
  csr.rows = rows;
  csr.cols = 64;
  csr.row_ptr.assign(1, 0);
  for (index_t r = 0; r < rows; ++r) {
    for (index_t c = 0; c < csr.cols; c += 1 + static_cast<index_t>(random() % 9)) {
      csr.col_idx.push_back(c);
      csr.values.push_back(std::uniform_real_distribution<float>(-1, 1)(random));
    }
    csr.row_ptr.push_back(static_cast<index_t>(csr.col_idx.size()));
  }
  return csr;
}

// The bytes of `fd` in a memfd of their own, not sealed.
int unsealed_copy(int fd) {
  struct stat info {};
  EXPECT_EQ(::fstat(fd, &info), 0);
  std::vector<char> bytes(static_cast<std::size_t>(info.st_size));
  EXPECT_EQ(::pread(fd, bytes.data(), bytes.size(), 0), static_cast<ssize_t>(bytes.size()));
  const int copy = ::memfd_create("unsealed", MFD_CLOEXEC);
  EXPECT_EQ(::write(copy, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
  return copy;
}

// Another thread of the grader forks (a runner's sandbox) while an image
// is written: the child must not keep the image from being sealed.
TEST(MatrixImage, IsSealedWhileAnotherThreadForks) {
  const std::uint64_t seed = test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 random{seed};
  const CsrMatrix matrix = random_csr(random, 4000);
  std::atomic<bool> writing{true};
  std::thread forker([&writing] {
    while (writing.load()) {
      const pid_t child = ::fork();
      if (child == 0) {
        const timespec pause{0, 2'000'000};
        ::nanosleep(&pause, nullptr);
        ::_exit(0);
      }
      if (child > 0) ::waitpid(child, nullptr, WNOHANG);
      const timespec gap{0, 200'000};
      ::nanosleep(&gap, nullptr);
    }
  });
  int failures = 0;
  std::string first_failure;
  for (int k = 0; k < 300; ++k) {
    try {
      const int fd = write_matrix_image(matrix);
      EXPECT_TRUE(sealed_image_identity(fd));
      ::close(fd);
    } catch (const std::runtime_error& e) {
      if (failures++ == 0) first_failure = e.what();
    }
  }
  writing = false;
  forker.join();
  while (::waitpid(-1, nullptr, 0) > 0) {
  }
  EXPECT_EQ(failures, 0) << "of 300 images; the first: " << first_failure;
}

TEST(ImageCache, ASealedImageIsReadOnceAndItsKeptPartStaysWithIt) {
  const std::uint64_t seed = test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 random{seed};
  const CsrMatrix first = random_csr(random, 50);
  const CsrMatrix second = random_csr(random, 70);
  const int a = write_matrix_image(first);
  const int b = write_matrix_image(second);
  ImageCache<int> cache(std::size_t{1} << 30, 8);

  ImageCache<int>::Entry& entry = cache.read(a);
  const auto matrix = entry.matrix;
  entry.kept = std::make_shared<int>(7);
  EXPECT_EQ(std::get<CsrMatrix>(*cache.read(b).matrix).col_idx, second.col_idx);
  ImageCache<int>::Entry& again = cache.read(a);
  EXPECT_EQ(again.matrix, matrix) << "read again, not shared";
  ASSERT_TRUE(again.kept);
  EXPECT_EQ(*again.kept, 7);
  EXPECT_EQ(std::get<CsrMatrix>(*again.matrix).values, first.values);
  EXPECT_EQ(cache.reads(), 2U);
  EXPECT_EQ(cache.hits(), 1U);
  ::close(a);
  ::close(b);
}

TEST(ImageCache, AnImageThatCouldChangeIsReadEveryTimeAndNeverKept) {
  const std::uint64_t seed = test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 random{seed};
  const CsrMatrix matrix = random_csr(random, 40);
  const int sealed = write_matrix_image(matrix);
  ASSERT_TRUE(sealed_image_identity(sealed));
  const int open = unsealed_copy(sealed);
  EXPECT_FALSE(sealed_image_identity(open));
  ImageCache<int> cache(std::size_t{1} << 30, 8);
  const auto once = cache.read(open).matrix;
  EXPECT_EQ(std::get<CsrMatrix>(*once).col_idx, matrix.col_idx);
  EXPECT_NE(cache.read(open).matrix, once);
  EXPECT_EQ(cache.reads(), 2U);
  EXPECT_EQ(cache.entries(), 0U);
  ::close(open);
  ::close(sealed);
}

TEST(ImageCache, TheLeastRecentlyUsedGoesFirstAndAKeptImageKeepsItsFileAlive) {
  const std::uint64_t seed = test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 random{seed};
  std::vector<CsrMatrix> matrices;
  std::vector<int> fds;
  for (int k = 0; k < 3; ++k) {
    matrices.push_back(random_csr(random, 30 + 10 * k));
    fds.push_back(write_matrix_image(matrices.back()));
  }
  ImageCache<int> cache(std::size_t{1} << 30, 2);
  const auto first = cache.read(fds[0]).matrix;
  const auto identity = sealed_image_identity(fds[0]);
  ASSERT_TRUE(identity);
  cache.read(fds[1]);
  cache.read(fds[0]);  // now the most recent
  cache.read(fds[2]);  // fds[1] goes
  EXPECT_EQ(cache.entries(), 2U);
  EXPECT_EQ(cache.read(fds[0]).matrix, first);
  const std::size_t reads = cache.reads();
  cache.read(fds[1]);
  EXPECT_EQ(cache.reads(), reads + 1) << "the least recently used image was kept";

  // Images made while one is kept never share its identity: the cache's
  // descriptor holds its file.
  ImageCache<int> holder(std::size_t{1} << 30, 4);
  holder.read(fds[2]);
  const auto held = sealed_image_identity(fds[2]);
  ::close(fds[2]);
  for (int k = 0; k < 16; ++k) {
    const int fresh = write_matrix_image(random_csr(random, 20));
    EXPECT_NE(sealed_image_identity(fresh), held);
    ::close(fresh);
  }
  // Larger than the cache's bytes: read, not kept.
  ImageCache<int> small(16, 4);
  small.read(fds[0]);
  EXPECT_EQ(small.entries(), 0U);
  ::close(fds[0]);
  ::close(fds[1]);
}

}  // namespace
}  // namespace spmv::runner
