// The writer and the reader of one JSON object's members, for a list of
// members written once and visited by both (visit_fields in row_json.cpp
// and journal.cpp), so the two never disagree: the list is the schema.
// Members are strings, numbers, flags, string lists and pairs, maps of
// numbers, 64-bit numbers (as strings: a double cannot hold every one),
// samples of rows and optionals of these (null when absent).
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

#include "model/json.hpp"
#include "model/row.hpp"

namespace spmv::grade {

struct FieldWriter {
  Json& out;  // the object the members are added to, in visiting order

  template <typename T>
  void operator()(const char* name, const T& value) {
    out[name] = put(value);
  }

  static Json put(const std::string& value) { return value; }
  static Json put(bool value) { return value; }
  // JSON has no infinity; a NaN in y makes the error ratio infinite.
  static Json put(double value) {
    if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
    return json_number(value);
  }
  static Json put(int value) { return value; }
  static Json put(std::int64_t value) { return value; }
  static Json put(Verdict value) { return token(value); }
  static Json put(const std::vector<std::string>& values) { return values; }
  static Json put(const std::map<std::string, double>& values) {
    Json object = Json::object();
    for (const auto& [name, value] : values) object[name] = put(value);
    return object;
  }
  static Json put(const std::map<std::string, std::vector<double>>& values) {
    Json object = Json::object();
    for (const auto& [name, list] : values) {
      Json array = Json::array();
      for (const double value : list) array.push_back(put(value));
      object[name] = std::move(array);
    }
    return object;
  }
  static Json put(const std::vector<std::pair<std::string, std::string>>& pairs) {
    Json array = Json::array();
    for (const auto& [first, second] : pairs) array.push_back(Json::array({first, second}));
    return array;
  }
  // As a string: a JSON number (a double) cannot hold every 64-bit seed.
  static Json put(std::uint64_t value) { return std::to_string(value); }
  static Json put(const RowSample& sample) {
    Json object = Json::object();
    object["row"] = sample.row;
    object["expected"] = json_number(sample.expected);
    object["got"] = json_number(sample.got);
    object["allowed"] = json_number(sample.allowed);
    return object;
  }
  template <typename T>
  static Json put(const std::optional<T>& value) {
    return value ? put(*value) : Json(nullptr);
  }
};

struct FieldReader {
  const Json& object;
  const char* what;  // "row", "run": for the messages

  template <typename T>
  void operator()(const char* name, T& value) {
    if (!object.is_object()) throw JsonError(std::string(what) + ": expected a JSON object");
    const auto member = object.find(name);
    if (member == object.end()) throw JsonError(std::string(what) + ": missing member \"" + name + "\"");
    try {
      get(*member, value);
    } catch (const std::exception& e) {
      throw JsonError(std::string(what) + " member \"" + name + "\": " + e.what());
    }
  }

  static void get(const Json& v, std::string& value) { value = json_as_string(v); }
  static void get(const Json& v, bool& value) { value = json_as_bool(v); }
  static void get(const Json& v, std::vector<std::pair<std::string, std::string>>& pairs) {
    pairs.clear();
    for (const auto& item : array(v)) {
      if (array(item).size() != 2) throw JsonError("an entry is not a pair [a, b]");
      pairs.emplace_back(json_as_string(item[0]), json_as_string(item[1]));
    }
  }
  static void get(const Json& v, double& value) {
    if (v.is_string() && (v == "inf" || v == "-inf")) {
      value = (v == "inf" ? 1 : -1) * std::numeric_limits<double>::infinity();
    } else {
      value = json_as_number(v);
    }
  }
  static void get(const Json& v, int& value) { value = static_cast<int>(json_as_number(v)); }
  static void get(const Json& v, std::int64_t& value) {
    value = v.is_number_integer() ? v.get<std::int64_t>() : static_cast<std::int64_t>(json_as_number(v));
  }
  static void get(const Json& v, Verdict& value) { value = verdict_from_token(json_as_string(v)); }
  static void get(const Json& v, std::vector<std::string>& values) {
    values.clear();
    for (const auto& item : array(v)) values.push_back(json_as_string(item));
  }
  static void get(const Json& v, std::map<std::string, double>& values) {
    if (!v.is_object()) throw JsonError(std::string("expected a JSON object, found ") + v.type_name());
    values.clear();
    for (const auto& [name, item] : v.items()) get(item, values[name]);
  }
  static void get(const Json& v, std::map<std::string, std::vector<double>>& values) {
    if (!v.is_object()) throw JsonError(std::string("expected a JSON object, found ") + v.type_name());
    values.clear();
    for (const auto& [name, list] : v.items()) {
      auto& out = values[name];
      for (const auto& item : array(list)) get(item, out.emplace_back());
    }
  }
  static void get(const Json& v, std::uint64_t& value) {
    const std::string& text = json_as_string(v);
    const auto result = std::from_chars(text.data(), text.data() + text.size(), value);
    if (result.ec != std::errc() || result.ptr != text.data() + text.size()) {
      throw JsonError("expected a decimal 64-bit integer, found \"" + text + "\"");
    }
  }
  static void get(const Json& v, RowSample& sample) {
    get(json_member(v, "row"), sample.row);
    get(json_member(v, "expected"), sample.expected);
    get(json_member(v, "got"), sample.got);
    get(json_member(v, "allowed"), sample.allowed);
  }
  // Absent values are null.
  template <typename T>
  static void get(const Json& v, std::optional<T>& value) {
    if (v.is_null()) {
      value.reset();
    } else {
      T inner{};
      get(v, inner);
      value = inner;
    }
  }

 private:
  static const Json& array(const Json& v) {
    if (!v.is_array()) throw JsonError(std::string("expected a JSON array, found ") + v.type_name());
    return v;
  }
};

}  // namespace spmv::grade
