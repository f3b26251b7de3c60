#include "grading/memcheck_pass.hpp"

#include <algorithm>
#include <string>

#include "judging/verdict.hpp"
#include "runners/memcheck.hpp"

namespace spmv::grade {

void memcheck_pass(const Setup& setup, const PrepareOptions& prepare, const std::filesystem::path& logs,
                   double timeout_s, GradingRunners& runners, Reporter& reporter, std::vector<RowResult>& rows) {
  const auto sanitizer = find_compute_sanitizer();
  if (!sanitizer) {
    reporter.info().notes.push_back(
        "--memcheck: compute-sanitizer was not found (PATH, $CUDA_HOME/bin, "
        "/usr/local/cuda/bin); no row was checked.");
    return;
  }
  int checked = 0;
  for (const std::string& kernel : setup.kernels) {
    std::vector<std::size_t> candidates;
    for (std::size_t i = 0; i < rows.size(); ++i) {
      if (rows[i].kernel == kernel && rows[i].verdict == Verdict::kPass && rows[i].nnz > 0) candidates.push_back(i);
    }
    std::sort(candidates.begin(), candidates.end(),
              [&](std::size_t a, std::size_t b) { return rows[a].nnz < rows[b].nnz; });
    if (candidates.size() > kMemcheckCases) candidates.resize(kMemcheckCases);
    const spmv_format format = setup.reference.find(kernel)->format;
    for (const std::size_t i : candidates) {
      RowResult& row = rows[i];
      const auto entry = std::find_if(setup.cases.begin(), setup.cases.end(),
                                      [&](const CaseEntry& c) { return c.test_case.name == row.case_name; });
      PreparedCase prepared = prepare_case(entry->test_case, {format}, prepare);
      std::vector<std::string> tools{"memcheck"};
      if (kernel == "csr_vector") tools.emplace_back("racecheck");
      for (const std::string& tool : tools) {
        const auto log = logs / (tool + "__" + file_name_part(kernel) + "__" + file_name_part(row.case_name) + ".log");
        // Its submission's code on the GPU, untimed: active in the GPU's share.
        const MemcheckOutcome outcome = [&] {
          const GpuShare::Hold active = runners.active();
          return run_under_sanitizer(runners.submission_spec(log), *sanitizer, tool, prepared, kernel, format,
                                     timeout_s);
        }();
        ++checked;
        if (!outcome.ran) {
          reporter.info().notes.push_back("--memcheck: " + kernel + " / " + row.case_name + " was not checked by " +
                                          tool + ": " + outcome.problem);
          continue;
        }
        if (!outcome.report.findings.empty() && row.verdict == Verdict::kPass) {
          set_verdict(row, Verdict::kWrong, tool, describe_findings(tool, outcome.report));
        }
      }
    }
  }
  reporter.info().notes.push_back("--memcheck: " + std::to_string(checked) + " runs under compute-sanitizer (" +
                                  sanitizer->string() + ").");
  reporter.rows_changed(rows);
}

}  // namespace spmv::grade
