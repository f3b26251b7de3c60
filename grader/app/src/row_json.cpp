#include "row_json.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <fstream>

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
  visit("flags", row.flags);
  visit("accepted_flags", row.accepted_flags);
  visit("bound_use", row.bound_use);
  visit("timing_parts_ms", row.timing_parts_ms);
  visit("phase_ms", row.phase_ms);
  visit("x_seed", row.x_seed);
  visit("log_file", row.log_file);
  visit("submission_output", row.submission_output);
}

struct FieldWriter {
  JsonWriter& out;

  template <typename T>
  void operator()(const char* name, const T& value) {
    out.key(name);
    put(value);
  }

  void put(const std::string& value) { out.value(value); }
  // JSON has no infinity; a NaN in y makes the error ratio infinite.
  void put(double value) {
    if (std::isinf(value)) {
      out.value(value > 0 ? "inf" : "-inf");
    } else {
      out.value(value);
    }
  }
  void put(int value) { out.value(value); }
  void put(std::int64_t value) { out.value(value); }
  void put(Verdict value) { out.value(token(value)); }
  void put(const std::vector<std::string>& values) {
    out.begin_array();
    for (const auto& value : values) out.value(value);
    out.end_array();
  }
  void put(const std::map<std::string, double>& values) {
    out.begin_object();
    for (const auto& [name, value] : values) {
      out.key(name);
      put(value);
    }
    out.end_object();
  }
  // As a string: a JSON number (a double) cannot hold every 64-bit seed.
  void put(std::uint64_t value) { out.value(std::to_string(value)); }
  void put(const RowSample& sample) {
    out.begin_object()
        .field("row", sample.row)
        .field("expected", sample.expected)
        .field("got", sample.got)
        .field("allowed", sample.allowed)
        .end_object();
  }
  template <typename T>
  void put(const std::optional<T>& value) {
    if (value) {
      put(*value);
    } else {
      out.null();
    }
  }
};

struct FieldReader {
  const JsonValue& object;

  template <typename T>
  void operator()(const char* name, T& value) {
    const JsonValue* member = object.find(name);
    if (member == nullptr) throw JsonError(std::string("row: missing member \"") + name + "\"");
    try {
      get(*member, value);
    } catch (const std::exception& e) {
      throw JsonError(std::string("row member \"") + name + "\": " + e.what());
    }
  }

  static void get(const JsonValue& v, std::string& value) { value = v.as_string(); }
  static void get(const JsonValue& v, double& value) {
    if (v.is_string() && (v.as_string() == "inf" || v.as_string() == "-inf")) {
      value = (v.as_string() == "inf" ? 1 : -1) * std::numeric_limits<double>::infinity();
    } else {
      value = v.as_number();
    }
  }
  static void get(const JsonValue& v, int& value) { value = static_cast<int>(v.as_number()); }
  static void get(const JsonValue& v, std::int64_t& value) { value = static_cast<std::int64_t>(v.as_number()); }
  static void get(const JsonValue& v, Verdict& value) { value = verdict_from_token(v.as_string()); }
  static void get(const JsonValue& v, std::vector<std::string>& values) {
    values.clear();
    for (const auto& item : v.as_array()) values.push_back(item.as_string());
  }
  static void get(const JsonValue& v, std::map<std::string, double>& values) {
    values.clear();
    for (const auto& [name, item] : v.as_object()) get(item, values[name]);
  }
  static void get(const JsonValue& v, std::uint64_t& value) {
    const std::string& text = v.as_string();
    const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
    if (result.ec != std::errc() || result.ptr != text.data() + text.size()) {
      throw JsonError("expected a decimal 64-bit integer, found \"" + text + "\"");
    }
  }
  static void get(const JsonValue& v, RowSample& sample) {
    get(v.at("row"), sample.row);
    get(v.at("expected"), sample.expected);
    get(v.at("got"), sample.got);
    get(v.at("allowed"), sample.allowed);
  }
  // Absent values are null.
  template <typename T>
  static void get(const JsonValue& v, std::optional<T>& value) {
    if (v.is_null()) {
      value.reset();
    } else {
      T inner{};
      get(v, inner);
      value = inner;
    }
  }
};

}  // namespace

void write_row(JsonWriter& out, const RowResult& row) {
  out.begin_object();
  visit_fields(row, FieldWriter{out});
  out.end_object();
}

std::string row_to_json_line(const RowResult& row) {
  JsonWriter out(0);
  write_row(out, row);
  return out.str();
}

RowResult row_from_json(const JsonValue& object) {
  RowResult row;
  visit_fields(row, FieldReader{object});
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
