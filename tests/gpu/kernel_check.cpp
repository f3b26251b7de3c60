#include "kernel_check.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string_view>

#include "spmv/core/golden.hpp"
#include "spmv/core/tolerance.hpp"
#include "spmv/memory/buffer.hpp"

namespace spmv::test {
namespace {

// Words of poison before and after y: a kernel writing past either end of y
// (an off-by-one row, a wrong permutation) changes them.
constexpr std::size_t kGuardWords = 64;

struct LaunchOutcome {
  spmv_status status = SPMV_SUCCESS;
  std::vector<float> y;
  std::string guard_damage;  // empty when both guard zones still hold the poison
  bool acceptable = false;   // set by the checks: no problem found
};

std::string status_text(spmv_status status) {
  if (status == SPMV_NOT_IMPLEMENTED) return "SPMV_NOT_IMPLEMENTED";
  if (status > 0) return std::string(cudaGetErrorName(static_cast<cudaError_t>(status)));
  return "status " + std::to_string(status);
}

std::string describe_guard_damage(const std::vector<std::uint32_t>& words, std::size_t rows) {
  std::ostringstream damage;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const bool in_guard = i < kGuardWords || i >= kGuardWords + rows;
    if (!in_guard || words[i] == kPoisonBits) continue;
    const auto offset = static_cast<std::int64_t>(i) - static_cast<std::int64_t>(kGuardWords);
    damage << "y[" << offset << "] (outside y[0.." << rows << ")) was written: " << std::bit_cast<float>(words[i])
           << "; ";
  }
  return damage.str();
}

LaunchOutcome launch_once(const spmv_kernel_entry& kernel, const UploadedMatrix& a, const Buffer<float>& x,
                          std::size_t rows, const Placement& where) {
  Buffer<std::uint32_t> y_with_guards(where.space, rows + 2 * kGuardWords);
  y_with_guards.raw().fill_words(kPoisonBits);
  float* y = reinterpret_cast<float*>(y_with_guards.data() + kGuardWords);

  RawBuffer scratch;
  if (kernel.scratch_size != nullptr) {
    scratch = RawBuffer(where.space, kernel.scratch_size(a.view()));
  }

  LaunchOutcome outcome;
  outcome.status = kernel.launch(a.view(), x.data(), y, scratch.data(), where.stream);
  if (where.space == MemorySpace::kDevice) {
    check_cuda(cudaStreamSynchronize(where.stream), "cudaStreamSynchronize after the kernel");
  }

  const std::vector<std::uint32_t> words = y_with_guards.download();
  outcome.guard_damage = describe_guard_damage(words, rows);
  outcome.y.resize(rows);
  if (rows > 0) std::memcpy(outcome.y.data(), words.data() + kGuardWords, rows * sizeof(float));
  return outcome;
}

// Empty when the run is acceptable, else what is wrong with it.
std::string run_problems(const LaunchOutcome& run, const CsrMatrix& a, const std::vector<float>& x,
                         const GoldenResult& golden) {
  if (run.status != SPMV_SUCCESS) return "the launch returned " + status_text(run.status);
  std::string problems = run.guard_damage;
  const ToleranceVerdict verdict = check_result(a, x, golden, run.y);
  if (!verdict.passed) problems += verdict.describe();
  return problems;
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

// What a run did to its inputs: empty when A and x are still as uploaded.
std::string input_damage(const UploadedMatrix& a, const Buffer<float>& x_uploaded, const std::vector<float>& x) {
  std::string damage;
  const std::vector<std::string> changed = a.changed_arrays();
  if (!changed.empty()) damage += " The kernel wrote to these arrays of A: " + joined(changed) + ".";
  const std::vector<float> x_now = x_uploaded.download();
  if (!x.empty() && std::memcmp(x_now.data(), x.data(), x.size() * sizeof(float)) != 0) {
    damage += " The kernel wrote to x.";
  }
  return damage;
}

std::string first_difference(const std::vector<float>& first, const std::vector<float>& second) {
  for (std::size_t row = 0; row < first.size(); ++row) {
    if (std::bit_cast<std::uint32_t>(first[row]) != std::bit_cast<std::uint32_t>(second[row])) {
      std::ostringstream text;
      text.precision(9);
      text << "row " << row << ": first run " << first[row] << ", second run " << second[row];
      return text.str();
    }
  }
  return "";
}

}  // namespace

DeviceStream::DeviceStream() {
  check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
}

DeviceStream::~DeviceStream() { cudaStreamDestroy(stream_); }

// A switch, so that a new format needs a decision here (-Wswitch).
bool may_vary_between_runs(const spmv_kernel_entry& kernel) {
  // The merge path adds a row cut by tile boundaries atomically: a row
  // spanning three or more tiles sums in arrival order (auto may pick it).
  const std::string_view name = kernel.name;
  if (name == "csr_merge" || name == "auto") return true;
  switch (kernel.format) {
    case SPMV_FORMAT_COO:
    case SPMV_FORMAT_HYB: return true;  // atomics add in whatever order threads arrive
    case SPMV_FORMAT_CSR:
    case SPMV_FORMAT_ELL:
    case SPMV_FORMAT_JDS:
    case SPMV_FORMAT_SELL: return false;  // each row's sum has one owner and one order
  }
  return false;  // an unknown format: the strict check
}

std::vector<std::vector<float>> expect_matches_golden(const spmv_kernel_entry& kernel,
                                                      const std::vector<UploadedMatrix>& layouts, const CsrMatrix& a,
                                                      const std::vector<float>& x, const Placement& where) {
  const GoldenResult golden = golden_spmv(a, x);
  const Buffer<float> x_uploaded(where.space, std::span<const float>(x));
  const auto rows = static_cast<std::size_t>(a.rows);
  std::vector<std::vector<float>> first_runs;
  for (const UploadedMatrix& layout : layouts) {
    SCOPED_TRACE("kernel \"" + std::string(kernel.name) + "\" on " + layout.label() + ", " + std::to_string(a.rows) +
                 " x " + std::to_string(a.cols) + ", " + std::to_string(a.nnz()) + " entries");
    EXPECT_EQ(layout.format(), kernel.format) << "the test built a layout of another format than the kernel's";
    // Inputs are checked after each run: a kernel that flips x back and
    // forth leaves it intact after an even number of runs.
    const auto run = [&](const char* which) {
      LaunchOutcome outcome = launch_once(kernel, layout, x_uploaded, rows, where);
      const std::string problems = run_problems(outcome, a, x, golden) + input_damage(layout, x_uploaded, x);
      EXPECT_EQ(problems, "") << which;
      outcome.acceptable = problems.empty();
      return outcome;
    };
    const LaunchOutcome first = run("first run");
    const LaunchOutcome second = run("second run, same input");
    if (first.acceptable && second.acceptable && !may_vary_between_runs(kernel)) {
      EXPECT_EQ(first_difference(first.y, second.y), "")
          << "two runs on the same input differ bit for bit (a race, or reading y before writing it)";
    }
    first_runs.push_back(first.status == SPMV_SUCCESS ? first.y : std::vector<float>{});
  }
  return first_runs;
}

}  // namespace spmv::test
