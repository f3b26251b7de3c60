// The writer and the reader of one JSON object's members, for a list of
// members written once and visited by both (visit_fields in row_json.cpp
// and journal.cpp), so the two never disagree. Members are strings, numbers,
// flags, string lists and pairs, maps of numbers, 64-bit numbers (as
// strings: a double cannot hold every one), samples of rows and optionals
// of these (null when absent).
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "json.hpp"
#include "row.hpp"

namespace spmv::grade {

struct FieldWriter {
  JsonWriter& out;

  template <typename T>
  void operator()(const char* name, const T& value) {
    out.key(name);
    put(value);
  }

  void put(const std::string& value) { out.value(value); }
  void put(bool value) { out.value(value); }
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
  void put(const std::vector<std::pair<std::string, std::string>>& pairs) {
    out.begin_array();
    for (const auto& [first, second] : pairs) out.begin_array().value(first).value(second).end_array();
    out.end_array();
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
  const char* what;  // "row", "run": for the messages

  template <typename T>
  void operator()(const char* name, T& value) {
    const JsonValue* member = object.find(name);
    if (member == nullptr) throw JsonError(std::string(what) + ": missing member \"" + name + "\"");
    try {
      get(*member, value);
    } catch (const std::exception& e) {
      throw JsonError(std::string(what) + " member \"" + name + "\": " + e.what());
    }
  }

  static void get(const JsonValue& v, std::string& value) { value = v.as_string(); }
  static void get(const JsonValue& v, bool& value) { value = v.as_bool(); }
  static void get(const JsonValue& v, std::vector<std::pair<std::string, std::string>>& pairs) {
    pairs.clear();
    for (const auto& item : v.as_array()) {
      const auto& pair = item.as_array();
      if (pair.size() != 2) throw JsonError("an entry is not a pair [a, b]");
      pairs.emplace_back(pair[0].as_string(), pair[1].as_string());
    }
  }
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

}  // namespace spmv::grade
