// The fold of a burst's chain (spmv/runner/chain.hpp) on the host: what
// x_k takes from y_(k-1), for wide, square and tall matrices. The runner's
// kernels sum a tall matrix's fold in parallel (burst.cu); the grader's
// check and the host path make x with link_x_word: both must give the same
// bits, and every bit of y_(k-1) must reach x_k.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "fresh_seed.hpp"
#include "spmv/runner/chain.hpp"

namespace spmv::runner {
namespace {

constexpr int kLink = 3;

struct Shape {
  std::size_t rows, cols;
};
// Taller than wide (1000 over 7, not a multiple; 700 over 7, one), one
// period and a word past it, square, wider than tall, one column, one row.
constexpr Shape kShapes[] = {{1000, 7}, {700, 7}, {2001, 2000}, {64, 64}, {50, 300}, {257, 1}, {1, 50}};

std::string name_of(const Shape& shape) { return std::to_string(shape.rows) + " x " + std::to_string(shape.cols); }

std::vector<std::uint32_t> random_words(std::mt19937_64& random, std::size_t count) {
  std::vector<std::uint32_t> words(count);
  for (auto& word : words) word = static_cast<std::uint32_t>(random());
  return words;
}

// Each shape with a burst seed and a fresh y, drawn from the test's seed
// (printed with any failure).
template <typename Shapes, typename Check>
void for_each_shape(const Shapes& shapes, Check check) {
  const std::uint64_t test_seed = test::fresh_seed();
  SPMV_TRACE_SEED(test_seed);
  std::mt19937_64 random(test_seed);
  for (const Shape& shape : shapes) {
    SCOPED_TRACE(name_of(shape));
    const std::uint64_t seed = random();
    check(shape, seed, random_words(random, shape.rows), random);
  }
}

std::vector<std::uint32_t> x_of(std::uint64_t seed, const std::vector<std::uint32_t>& y, std::size_t cols) {
  std::vector<std::uint32_t> x(cols);
  for (std::size_t i = 0; i < cols; ++i) x[i] = link_x_word(seed, kLink, y.data(), y.size(), cols, i);
  return x;
}

// Every bit of every y[j], flipped alone, changes x[j mod cols] (and, with
// fewer rows than columns, every x[i] with i mod rows = j): whatever the
// rest of y, since y[j] enters that fold as itself or through fold_term, a
// bijection of it, and the fold enters x through a bijection. So every
// flip is tried, on a fresh y each run, and none may go unseen.
TEST(ChainFold, EveryBitOfEveryWordOfThePreviousYChangesItsX) {
  for_each_shape(kShapes, [](const Shape& shape, std::uint64_t seed, std::vector<std::uint32_t> y, std::mt19937_64&) {
    const std::vector<std::uint32_t> x = x_of(seed, y, shape.cols);
    int unseen = 0;
    for (std::size_t j = 0; j < shape.rows; ++j) {
      for (int bit = 0; bit < 32; ++bit) {
        y[j] ^= 1U << bit;
        const std::vector<std::uint32_t> changed = x_of(seed, y, shape.cols);
        y[j] ^= 1U << bit;
        for (std::size_t i = 0; i < shape.cols; ++i) {
          const bool takes_it = shape.rows > shape.cols ? i == j % shape.cols : i % shape.rows == j;
          if (takes_it && changed[i] == x[i] && ++unseen <= 5) {
            ADD_FAILURE() << "bit " << bit << " of y[" << j << "] leaves x[" << i << "] as it was";
          }
        }
      }
    }
    EXPECT_EQ(unseen, 0);
  });
}

// The fold summed as the runner's kernels do on a tall matrix: the terms of
// j >= cols in chunks of random lengths, taken in a random order, each
// chunk's sums by column added into one word per column, then y[i] added
// and x[i] made from it: the same bits as link_x_word, which the grader's
// check and the host path use.
TEST(ChainFold, SumsOfChunksInAnyOrderMakeTheSameX) {
  for_each_shape(kShapes, [](const Shape& shape, std::uint64_t seed, const std::vector<std::uint32_t>& y,
                             std::mt19937_64& random) {
    const std::vector<std::uint32_t> expected = x_of(seed, y, shape.cols);
    for (int order = 0; order < 3; ++order) {
      std::vector<std::size_t> rows_beyond;
      for (std::size_t j = shape.cols; j < shape.rows; ++j) rows_beyond.push_back(j);
      std::shuffle(rows_beyond.begin(), rows_beyond.end(), random);
      std::vector<std::uint32_t> folds(shape.cols, 0);
      for (std::size_t at = 0; at < rows_beyond.size();) {
        const std::size_t end = std::min(rows_beyond.size(), at + 1 + random() % 64);
        std::vector<std::uint32_t> chunk(shape.cols, 0);
        for (; at < end; ++at) chunk[rows_beyond[at] % shape.cols] += fold_term(y[rows_beyond[at]], rows_beyond[at]);
        for (std::size_t i = 0; i < shape.cols; ++i) folds[i] += chunk[i];
      }
      std::vector<std::uint32_t> x(shape.cols);
      for (std::size_t i = 0; i < shape.cols; ++i) {
        x[i] = link_x_bits(link_seed(seed, kLink), y[i % shape.rows] + folds[i], i);
      }
      EXPECT_EQ(x, expected) << "order " << order;
    }
  });
}

// With no more rows than columns x[i] takes y[i mod rows] alone (the fold
// as it was before tall matrices' folds became sums); the first link takes
// nothing.
TEST(ChainFold, AMatrixNoTallerThanWideGivesEachXOneWordOfY) {
  constexpr Shape kWide[] = {{50, 300}, {64, 64}, {1, 50}};
  for_each_shape(kWide,
                 [](const Shape& shape, std::uint64_t seed, const std::vector<std::uint32_t>& y, std::mt19937_64&) {
                   for (std::size_t i = 0; i < shape.cols; ++i) {
                     EXPECT_EQ(fold_previous(y.data(), shape.rows, shape.cols, i), y[i % shape.rows]) << i;
                     EXPECT_EQ(link_x_word(seed, kLink, y.data(), shape.rows, shape.cols, i),
                               link_x_bits(link_seed(seed, kLink), y[i % shape.rows], i))
                         << i;
                     EXPECT_EQ(fold_previous(nullptr, 0, shape.cols, i), 0U);
                   }
                 });
}

}  // namespace
}  // namespace spmv::runner
