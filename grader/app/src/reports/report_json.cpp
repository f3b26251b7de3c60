#include <cmath>
#include <sstream>

#include "model/json.hpp"
#include "reports/report.hpp"

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

Json measurements(const RowResult& row, bool visible) {
  Json extra = Json::object();
  extra["verdict"] = token(row.verdict);
  extra["flags"] = row.flags;
  if (!visible) return extra;
  extra["cause"] = row.cause;
  extra["format"] = row.format;
  if (row.max_error_ratio && std::isfinite(*row.max_error_ratio)) {
    extra["max_error_ratio"] = json_number(*row.max_error_ratio);
  }
  for (const auto& [name, sample] :
       {std::pair{"first_bad_row", &row.first_bad_row}, std::pair{"worst_bad_row", &row.worst_bad_row}}) {
    if (!*sample) continue;
    Json& entry = extra[name] = Json::object();
    entry["row"] = (*sample)->row;
    entry["expected"] = json_number((*sample)->expected);
    entry["got"] = json_number((*sample)->got);
    entry["allowed"] = json_number((*sample)->allowed);
  }
  extra["submission_ms"] = json_number(row.submission_ms);
  extra["reference_ms"] = json_number(row.reference_ms);
  extra["speedup"] = json_number(row.speedup);
  extra["gbps"] = json_number(row.gbps);
  extra["percent_of_copy"] = json_number(row.percent_of_copy);
  extra["cusparse_ms"] = json_number(row.cusparse_ms);
  extra["rows"] = row.rows;
  extra["cols"] = row.cols;
  extra["nnz"] = row.nnz;
  return extra;
}

Json test_json(const RowResult& row, const RowScore& score, const std::string& number, const Policy& policy) {
  Json test = Json::object();
  test["name"] = row.kernel + " / " + row.case_name;
  test["number"] = number;
  test["score"] = json_number(points(score.score));
  test["max_score"] = json_number(points(score.max_score));
  test["status"] = is_success(row.verdict) ? "passed" : "failed";
  test["output"] = test_output(policy, row);
  test["output_format"] = "text";
  Json& tags = test["tags"] = Json::array({row.kernel});
  for (const auto& tag : row.tags) tags.push_back(tag);
  test["visibility"] = policy.case_visibility(row.case_name, row.visibility);
  test["extra_data"] = measurements(row, student_visible_now(policy, row));
  return test;
}

// An object's member names are unique: an entry named twice (the GPUs of
// runs merged from several machines) keeps each value, joined by "; ".
Json provenance_json(const std::vector<std::pair<std::string, std::string>>& entries) {
  Json provenance = Json::object();
  for (const auto& [what, value] : entries) {
    const auto named = provenance.find(what);
    if (named == provenance.end()) {
      provenance[what] = value;
    } else {
      *named = named->get<std::string>() + "; " + value;
    }
  }
  return provenance;
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
  Json report = Json::object();
  report["score"] = json_number(points(summary.score));
  report["execution_time"] = static_cast<std::int64_t>(std::ceil(info.elapsed_s));
  report["output"] = overall_output(summary, rows, info);
  report["output_format"] = "text";
  report["visibility"] = "visible";
  // Progress lines name hidden cases: keep the grader's stdout private.
  report["stdout_visibility"] = "hidden";
  Json& tests = report["tests"] = Json::array();
  // Numbered "<kernel>.<case>" in report order, both from 1.
  int kernel_number = 0;
  int case_number = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (i == 0 || rows[i].kernel != rows[i - 1].kernel) {
      ++kernel_number;
      case_number = 0;
    }
    tests.push_back(test_json(rows[i], summary.rows[i],
                              std::to_string(kernel_number) + "." + std::to_string(++case_number), policy));
  }
  Json leader = Json::object();
  leader["name"] = "Geometric-mean speedup";
  leader["value"] = json_number(summary.geomean_speedup.value_or(0.0));
  leader["order"] = "desc";
  report["leaderboard"] = Json::array({leader});
  Json& extra = report["extra_data"] = Json::object();
  // No path of the grading machine: names and hashes only.
  extra["max_score"] = json_number(points(summary.max_score));
  extra["submission"] = info.submission_name;
  extra["device"] = info.device;
  extra["copy_gbps"] = json_number(info.copy_gbps);
  extra["secret_seed"] = info.secret_seed;
  extra["isolation"] = info.isolation;
  extra["unisolated"] = info.unisolated;
  if (info.seed) extra["seed"] = std::to_string(*info.seed);
  extra["provenance"] = provenance_json(info.provenance);
  return json_text(report) + "\n";
}

}  // namespace spmv::grade
