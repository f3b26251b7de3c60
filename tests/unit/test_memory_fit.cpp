// A matrix's size is checked against what this machine can hold before
// anything of that size is allocated (memory_fit.hpp): a mistyped Matrix
// Market size line or generator spec is an error naming the line or the
// spec, never gigabytes allocated or a bare std::bad_alloc.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>

#include "spmv/core/generators.hpp"
#include "spmv/core/matrix_market.hpp"
#include "spmv/core/memory_fit.hpp"

namespace spmv {
namespace {

// Sets SPMV_MEMORY_BYTES for one test: a machine of a known size.
class MachineOf {
 public:
  explicit MachineOf(const char* bytes) {
    if (const char* old = std::getenv("SPMV_MEMORY_BYTES")) old_ = old;
    ::setenv("SPMV_MEMORY_BYTES", bytes, 1);
  }
  ~MachineOf() {
    if (old_) {
      ::setenv("SPMV_MEMORY_BYTES", old_->c_str(), 1);
    } else {
      ::unsetenv("SPMV_MEMORY_BYTES");
    }
  }
  MachineOf(const MachineOf&) = delete;
  MachineOf& operator=(const MachineOf&) = delete;

 private:
  std::optional<std::string> old_;
};

long peak_rss_kib() {
  rusage usage{};
  ::getrusage(RUSAGE_SELF, &usage);
  return usage.ru_maxrss;
}

std::string contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos ? std::string() : "\"" + part + "\" not in: " + text;
}

TEST(MemoryFit, TheMachineHasSomeMemory) {
  const MemoryBudget budget = machine_memory();
  EXPECT_GT(budget.machine_bytes, std::uint64_t{1} << 28) << budget.source;
  EXPECT_FALSE(budget.source.empty());
  EXPECT_EQ(budget.case_limit(), budget.machine_bytes / 2);
}

TEST(MemoryFit, TheEnvironmentSetsTheMachinesSize) {
  {
    const MachineOf machine("64G");
    EXPECT_EQ(machine_memory().machine_bytes, std::uint64_t{64} << 30);
    EXPECT_EQ(machine_memory().source, "SPMV_MEMORY_BYTES");
  }
  {
    const MachineOf machine("1048576");
    EXPECT_EQ(machine_memory().machine_bytes, std::uint64_t{1} << 20);
  }
  for (const char* bad : {"lots", "12Q", "-5", "0"}) {
    const MachineOf machine(bad);
    try {
      static_cast<void>(machine_memory());
      ADD_FAILURE() << "accepted SPMV_MEMORY_BYTES=" << bad;
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(contains(e.what(), "SPMV_MEMORY_BYTES"), "");
    }
  }
}

TEST(MemoryFit, ShapesAreWeighedByRowsColumnsAndEntries) {
  const MemoryBudget budget{std::uint64_t{16} << 30, "test"};
  EXPECT_EQ(memory_problem({1'000'000, 1'000'000, 50'000'000}, budget), "") << "a large but real case fits";
  const std::string problem = memory_problem({2'000'000'000, 2'000'000'000, 3}, budget);
  EXPECT_EQ(contains(problem, "2000000000 x 2000000000 with 3 entries"), "");
  EXPECT_EQ(contains(problem, "8.0 GiB a case may use"), "");
  EXPECT_GT(grading_bytes({2'000'000'000, 2'000'000'000, 3}), std::uint64_t{100} << 30);
  EXPECT_EQ(format_bytes(100), "100 bytes");
  EXPECT_EQ(format_bytes(std::uint64_t{3} << 29), "1.5 GiB");
}

// The case: a size line with a typo, three entries. It must be
// refused at the size line, at once, without allocating its arrays.
TEST(MemoryFit, AMistypedSizeLineIsRefusedBeforeAllocating) {
  const MachineOf machine("16G");
  const long before = peak_rss_kib();
  try {
    parse_matrix_market(
        "%%MatrixMarket matrix coordinate real general\n% typo below\n2000000000 2000000000 3\n"
        "1 1 1\n2 2 1\n3 3 1\n",
        "cases/typo.mtx");
    ADD_FAILURE() << "a 2e9 x 2e9 matrix was read on a 16 GiB machine";
  } catch (const MatrixMarketError& e) {
    EXPECT_EQ(e.line(), 3) << e.what();
    const std::string text = e.what();
    EXPECT_EQ(text.rfind("cases/typo.mtx:3: expected a size this machine can hold, found '2000000000 2000000000 3'", 0),
              0U)
        << text;
    EXPECT_EQ(contains(text, "is the size line mistyped?"), "");
  }
  EXPECT_LT(peak_rss_kib() - before, 256 * 1024) << "hundreds of MiB were allocated before the refusal";
}

TEST(MemoryFit, ArrayAndSymmetricFilesAreWeighedToo) {
  const MachineOf machine("1G");
  // 100000 x 100000 array: its rows and columns alone exceed 512 MiB.
  EXPECT_THROW(parse_matrix_market("%%MatrixMarket matrix array real general\n100000000 3\n1\n2\n3\n", "a.mtx"),
               MatrixMarketError);
  const CsrMatrix small =
      parse_matrix_market("%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n1 1 1\n2 1 5\n", "s.mtx");
  EXPECT_EQ(small.nnz(), 3);
}

TEST(MemoryFit, AGeneratorSpecTooLargeIsRefusedBeforeGenerating) {
  const MachineOf machine("16G");
  for (const char* spec : {"empty rows=2000000000 cols=2000000000", "diagonal n=2000000000",
                           "random rows=1000000000 cols=10 per_row=1", "stencil2d nx=20000 ny=20000"}) {
    try {
      static_cast<void>(gen::generate(spec));
      ADD_FAILURE() << "generated " << spec;
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(contains(e.what(), std::string("generator spec \"") + spec + "\": too large for this machine"), "");
    }
  }
  EXPECT_EQ(gen::generate("empty rows=1000 cols=1000").rows, 1000) << "a small spec is generated as before";
}

}  // namespace
}  // namespace spmv
