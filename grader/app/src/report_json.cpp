#include <cmath>
#include <sstream>

#include "json.hpp"
#include "report.hpp"

namespace spmv::grade {
namespace {

// Points as Gradescope shows them: two decimals are plenty, and rounding
// keeps 33.333333333 from looking like noise.
double points(double value) { return std::round(value * 100) / 100; }

// What a submission printed, as a student may see it: printable ASCII,
// newlines and tabs kept, every other byte (terminal escapes, invalid UTF-8)
// shown as '?', and at most kVisibleOutputBytes.
std::string shown_output(const std::string& output) {
  std::string text;
  for (const char c : output.substr(0, kVisibleOutputBytes)) {
    const auto byte = static_cast<unsigned char>(c);
    text += (byte >= 0x20 && byte < 0x7f) || c == '\n' || c == '\t' ? c : '?';
  }
  if (output.size() > kVisibleOutputBytes) {
    text += "\n[... cut: results.json shows the first " + std::to_string(kVisibleOutputBytes) + " bytes]";
  }
  return text;
}

bool student_visible_now(const Policy& policy, const RowResult& row) {
  return policy.case_visibility(row.case_name, row.visibility) == "visible";
}

// A test that is not visible now (hidden, after_due_date, after_published)
// carries its verdict and points only: no submission output, no detail of
// the case, whatever the submission printed or the case holds.
std::string test_output(const Policy& policy, const RowResult& row) {
  if (!student_visible_now(policy, row)) return describe(row.verdict);
  std::string text = student_visible(row, row.summary);
  if (!row.detail.empty()) text += "\n" + student_visible(row, row.detail);
  if (!row.case_why.empty()) text += "\n\nThe case: " + row.case_why;
  const bool ran = row.verdict == Verdict::kPass || row.verdict == Verdict::kWrong || row.verdict == Verdict::kCrash ||
                   row.verdict == Verdict::kTimeout;
  if (ran && row.x_seed) text += "\n\nx seed: " + std::to_string(*row.x_seed);
  if (!row.submission_output.empty()) text += "\n\nsubmission output:\n" + shown_output(row.submission_output);
  return text;
}

void write_measurements(JsonWriter& out, const RowResult& row, bool visible) {
  out.key("extra_data").begin_object();
  out.field("verdict", token(row.verdict));
  out.key("flags").begin_array();
  for (const auto& flag : row.flags) out.value(flag);
  out.end_array();
  if (!visible) {
    out.end_object();
    return;
  }
  out.field("cause", row.cause).field("format", row.format);
  if (row.max_error_ratio && std::isfinite(*row.max_error_ratio)) out.field("max_error_ratio", *row.max_error_ratio);
  for (const auto& [name, sample] : {std::pair{"first_bad_row", &row.first_bad_row},
                                     std::pair{"worst_bad_row", &row.worst_bad_row}}) {
    if (!*sample) continue;
    out.key(name).begin_object();
    out.field("row", (*sample)->row)
        .field("expected", (*sample)->expected)
        .field("got", (*sample)->got)
        .field("allowed", (*sample)->allowed);
    out.end_object();
  }
  out.field("submission_ms", row.submission_ms)
      .field("reference_ms", row.reference_ms)
      .field("speedup", row.speedup)
      .field("gbps", row.gbps)
      .field("percent_of_copy", row.percent_of_copy)
      .field("cusparse_ms", row.cusparse_ms)
      .field("rows", row.rows)
      .field("cols", row.cols)
      .field("nnz", row.nnz);
  out.end_object();
}

void write_test(JsonWriter& out, const RowResult& row, const RowScore& score, const std::string& number,
                const Policy& policy) {
  out.begin_object();
  out.field("name", row.kernel + " / " + row.case_name)
      .field("number", number)
      .field("score", points(score.score))
      .field("max_score", points(score.max_score))
      .field("status", is_success(row.verdict) ? "passed" : "failed")
      .field("output", test_output(policy, row))
      .field("output_format", "text");
  out.key("tags").begin_array().value(row.kernel);
  for (const auto& tag : row.tags) out.value(tag);
  out.end_array();
  out.field("visibility", policy.case_visibility(row.case_name, row.visibility));
  write_measurements(out, row, student_visible_now(policy, row));
  out.end_object();
}

std::string overall_output(const ScoreSummary& summary, const std::vector<RowResult>& rows, const RunInfo& info) {
  std::ostringstream text;
  text << score_line(summary, rows) << "\n";
  text << "Submission: " << info.submission_name << "\n";
  if (!info.device.empty()) text << "Device: " << info.device << "\n";
  if (!info.isolation.empty()) text << "Isolation: " << info.isolation << " (" << info.isolation_detail << ")\n";
  for (const auto& note : info.notes) text << note << "\n";
  return text.str();
}

}  // namespace

std::string gradescope_json(const Policy& policy, const std::vector<RowResult>& unordered, const RunInfo& info) {
  const auto rows = in_report_order(unordered);
  const ScoreSummary summary = score_rows(policy, rows);
  JsonWriter out;
  out.begin_object();
  out.field("score", points(summary.score))
      .field("execution_time", static_cast<std::int64_t>(std::ceil(info.elapsed_s)))
      .field("output", overall_output(summary, rows, info))
      .field("output_format", "text")
      .field("visibility", "visible")
      // Progress lines name hidden cases: keep the grader's stdout private.
      .field("stdout_visibility", "hidden");
  out.key("tests").begin_array();
  // Numbered "<kernel>.<case>" in report order, both from 1.
  int kernel_number = 0;
  int case_number = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i == 0 || rows[i].kernel != rows[i - 1].kernel) {
      ++kernel_number;
      case_number = 0;
    }
    write_test(out, rows[i], summary.rows[i], std::to_string(kernel_number) + "." + std::to_string(++case_number),
               policy);
  }
  out.end_array();
  out.key("leaderboard").begin_array();
  out.begin_object()
      .field("name", "Geometric-mean speedup")
      .field("value", summary.geomean_speedup.value_or(0.0))
      .field("order", "desc")
      .end_object();
  out.end_array();
  out.key("extra_data").begin_object();
  // No path of the grading machine: names and hashes only.
  out.field("max_score", points(summary.max_score))
      .field("submission", info.submission_name)
      .field("device", info.device)
      .field("copy_gbps", info.copy_gbps)
      .field("secret_seed", info.secret_seed)
      .field("isolation", info.isolation)
      .field("unisolated", info.unisolated);
  if (info.seed) out.field("seed", std::to_string(*info.seed));
  out.key("provenance").begin_object();
  for (const auto& [what, value] : info.provenance) out.field(what, value);
  out.end_object();
  out.end_object();
  out.end_object();
  return out.str() + "\n";
}

}  // namespace spmv::grade
