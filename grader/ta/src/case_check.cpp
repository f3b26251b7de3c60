#include "case_check.hpp"

#include <memory>
#include <set>
#include <utility>

#include "kernel_run.hpp"
#include "spmv/core/format_table.hpp"
#include "spmv/memory/buffer.hpp"
#include "spmv/plugin/plugin.hpp"

namespace spmv::ta {
namespace {

// Calls use(container) with `format`'s form of `csr`. Throws
// ConversionRefused when the format cannot hold it within the limits or the
// host library has no container of it (as spmv-grade, which then reports
// its kernels not applicable).
template <typename Use>
void with_format(const CsrMatrix& csr, spmv_format format, const ConversionLimits& limits, Use&& use) {
  if (with_form(csr, static_cast<int>(format), limits, std::forward<Use>(use))) return;
  throw ConversionRefused(std::string("the host library has no ") + format_name(format) + " container");
}

class FormatChecker {
 public:
  FormatChecker(const CsrMatrix& csr, const std::vector<const spmv_kernel_entry*>& kernels, const CheckOptions& options,
                MatrixCheck& result)
      : csr_(csr), kernels_(kernels), options_(options), result_(result) {
    if (!options.run_kernels) return;
    try {
      runner_ = std::make_unique<KernelRunner>(csr, options.x_seed, options.memory);
    } catch (const std::exception& e) {
      // The formats are still built and validated; only the runs are lost.
      result_.problems.push_back(std::string("preparing the kernel runs failed: ") + e.what());
    }
  }

  void check(spmv_format format) {
    tell(std::string("converting to ") + format_name(format) + " and validating it");
    try {
      with_format(csr_, format, options_.limits, [&](const auto& container) { check_container(format, container); });
    } catch (const ConversionRefused& e) {
      set_cells(format, KernelState::kNotApplicable, e.what());
    } catch (const std::exception& e) {
      fail(format, std::string("building the ") + format_name(format) + " form failed: " + e.what());
    }
  }

 private:
  template <typename Container>
  void check_container(spmv_format format, const Container& container) {
    try {
      container.validate();
    } catch (const std::exception& e) {
      fail(format, std::string("the ") + format_name(format) + " form is invalid: " + e.what());
      return;
    }
    if (!runner_) {
      set_cells(format, KernelState::kApplies, {});
      return;
    }
    std::unique_ptr<runner::UploadedMatrix> uploaded;
    try {
      uploaded = runner::upload_matrix(options_.memory, container);
    } catch (const std::exception& e) {
      fail(format, std::string("uploading the ") + format_name(format) + " form failed: " + e.what());
      return;
    }
    for (std::size_t i = 0; i < kernels_.size(); ++i) {
      if (kernels_[i]->format != format) continue;
      tell("running kernel " + std::string(kernels_[i]->name));
      const KernelRun run = runner_->run(*kernels_[i], *uploaded);
      result_.kernels[i] = {run.passed ? KernelState::kPassed : KernelState::kFailed, run.detail};
      if (!run.passed)
        result_.problems.push_back("kernel " + std::string(kernels_[i]->name) + " FAILED: " + run.detail);
    }
  }

  void tell(const std::string& phase) const {
    if (options_.on_phase) options_.on_phase(phase);
  }

  void set_cells(spmv_format format, KernelState state, const std::string& detail) {
    for (std::size_t i = 0; i < kernels_.size(); ++i) {
      if (kernels_[i]->format == format) result_.kernels[i] = {state, detail};
    }
  }

  void fail(spmv_format format, const std::string& problem) {
    set_cells(format, KernelState::kFailed, problem);
    result_.problems.push_back(problem);
  }

  const CsrMatrix& csr_;
  const std::vector<const spmv_kernel_entry*>& kernels_;
  const CheckOptions& options_;
  MatrixCheck& result_;
  std::unique_ptr<KernelRunner> runner_;
};

// Matrix Market errors name the file and line; a generator's do not, so
// they get the manifest line that defines the case.
std::string naming_origin(const TestCase& test_case, const std::string& message) {
  return message.find(test_case.origin) == std::string::npos ? test_case.origin + ": " + message : message;
}

}  // namespace

MatrixCheck check_matrix(const CsrMatrix& csr, const std::vector<const spmv_kernel_entry*>& kernels,
                         const CheckOptions& options) {
  MatrixCheck result;
  result.stats = compute_stats(csr);
  result.kernels.resize(kernels.size());
  std::set<spmv_format> formats;
  for (const auto* kernel : kernels) formats.insert(kernel->format);
  FormatChecker checker(csr, kernels, options, result);
  for (const spmv_format format : formats) checker.check(format);
  return result;
}

CaseReport check_case(const TestCase& test_case, const std::filesystem::path& cache_dir,
                      const std::vector<const spmv_kernel_entry*>& kernels, const CheckOptions& options) {
  CaseReport report;
  report.name = test_case.name;
  CsrMatrix csr;
  if (options.on_phase) {
    options.on_phase(test_case.generator.empty() ? "reading " + test_case.file.string()
                                                 : "generating (or reading from the cache) " + test_case.generator);
  }
  try {
    csr = load_case_matrix(test_case, cache_dir);
    csr.validate();
  } catch (const std::exception& e) {
    report.problems.push_back(naming_origin(test_case, e.what()));
    return report;
  }
  report.check = check_matrix(csr, kernels, options);
  for (const auto& problem : report.check->problems) {
    report.problems.push_back(test_case.origin + ": case " + test_case.name + ": " + problem);
  }
  return report;
}

std::vector<std::string> not_applicable_notes(const MatrixCheck& check,
                                              const std::vector<const spmv_kernel_entry*>& kernels) {
  std::vector<std::string> notes;
  std::set<std::string> seen;  // kernels of one format share the reason
  for (std::size_t i = 0; i < kernels.size(); ++i) {
    const KernelCell& cell = check.kernels[i];
    if (cell.state != KernelState::kNotApplicable || !seen.insert(cell.detail).second) continue;
    std::string names;
    for (std::size_t j = i; j < kernels.size(); ++j) {
      if (check.kernels[j].detail == cell.detail) names += (names.empty() ? "" : ", ") + std::string(kernels[j]->name);
    }
    notes.push_back(names + ": n/a (" + cell.detail + ")");
  }
  return notes;
}

}  // namespace spmv::ta
