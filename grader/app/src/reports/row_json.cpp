#include "reports/row_json.hpp"

#include <fstream>

#include "reports/json_fields.hpp"

namespace spmv::grade {
namespace {

// The one list of a row's JSON members, shared by the writer and the reader
// so the two can never disagree. `Row` is RowResult or const RowResult.
template <typename Row, typename Visitor>
void visit_fields(Row& row, Visitor&& visit) {
  visit("kernel", row.kernel);
  visit("format", row.format);
  visit("kernel_order", row.kernel_order);
  visit("case", row.case_name);
  visit("case_order", row.case_order);
  visit("case_source", row.case_source);
  visit("case_why", row.case_why);
  visit("case_weight", row.case_weight);
  visit("visibility", row.visibility);
  visit("tags", row.tags);
  visit("rows", row.rows);
  visit("cols", row.cols);
  visit("nnz", row.nnz);
  visit("verdict", row.verdict);
  visit("cause", row.cause);
  visit("summary", row.summary);
  visit("detail", row.detail);
  visit("stage", row.stage);
  visit("max_error_ratio", row.max_error_ratio);
  visit("first_bad_row", row.first_bad_row);
  visit("worst_bad_row", row.worst_bad_row);
  visit("submission_ms", row.submission_ms);
  visit("reference_ms", row.reference_ms);
  visit("cusparse_ms", row.cusparse_ms);
  visit("speedup", row.speedup);
  visit("gbps", row.gbps);
  visit("copy_gbps", row.copy_gbps);
  visit("percent_of_copy", row.percent_of_copy);
  visit("cusparse_gbps", row.cusparse_gbps);
  visit("compulsory_bytes", row.compulsory_bytes);
  visit("submission_samples", row.submission_samples);
  visit("reference_samples", row.reference_samples);
  visit("checked_launches", row.checked_launches);
  visit("correctness_only", row.correctness_only);
  visit("flags", row.flags);
  visit("accepted_flags", row.accepted_flags);
  visit("bound_use", row.bound_use);
  visit("timing_parts_ms", row.timing_parts_ms);
  visit("timing_bursts_ms", row.timing_bursts_ms);
  visit("burst_links", row.burst_links);
  visit("phase_ms", row.phase_ms);
  visit("x_seed", row.x_seed);
  visit("log_file", row.log_file);
  visit("submission_output", row.submission_output);
}

}  // namespace

Json row_to_json(const RowResult& row) {
  Json object = Json::object();
  visit_fields(row, FieldWriter{object});
  return object;
}

std::string row_to_json_line(const RowResult& row) { return json_text(row_to_json(row), 0); }

RowResult row_from_json(const Json& object) {
  RowResult row;
  visit_fields(row, FieldReader{object, "row"});
  return row;
}

std::vector<RowResult> read_rows_file(const std::filesystem::path& path) {
  std::ifstream file(path);
  if (!file) throw JsonError(path.string() + ": cannot open");
  std::vector<RowResult> rows;
  std::string line;
  for (int number = 1; std::getline(file, line); ++number) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      rows.push_back(row_from_json(parse_json(line)));
    } catch (const std::exception& e) {
      throw JsonError(path.string() + ":" + std::to_string(number) + ": " + e.what());
    }
  }
  return rows;
}

}  // namespace spmv::grade
