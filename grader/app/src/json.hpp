// A small JSON writer and reader, enough for the grader's reports
// (results.json, rows.jsonl) and for reading rows back when aggregating.
//
// The writer always produces valid UTF-8 JSON whatever bytes it is given:
// submission output is arbitrary, and Gradescope rejects the whole report
// if one string is malformed, so invalid UTF-8 becomes U+FFFD and control
// characters are escaped. Non-finite numbers are written as null.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace spmv::grade {

// `text` as a quoted JSON string literal.
std::string json_quote(std::string_view text);

class JsonWriter {
 public:
  // indent 0: everything on one line (JSON lines); otherwise pretty-printed.
  explicit JsonWriter(int indent = 2) : indent_(indent) {}

  JsonWriter& begin_object();
  JsonWriter& end_object();
  JsonWriter& begin_array();
  JsonWriter& end_array();
  JsonWriter& key(std::string_view name);
  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(const std::string& text) { return value(std::string_view(text)); }
  JsonWriter& value(double number);
  JsonWriter& value(std::int64_t number);
  JsonWriter& value(int number) { return value(static_cast<std::int64_t>(number)); }
  JsonWriter& value(bool flag);
  JsonWriter& null();
  template <typename T>
  JsonWriter& value(const std::optional<T>& maybe) {
    return maybe ? value(*maybe) : null();
  }
  // key(name).value(v) in one call.
  template <typename T>
  JsonWriter& field(std::string_view name, const T& v) {
    key(name);
    return value(v);
  }

  // The document; throws std::logic_error if an object or array is open.
  [[nodiscard]] const std::string& str() const;

 private:
  void before_value();
  void newline();

  struct Level {
    bool object;
    int members = 0;
  };
  int indent_;
  std::string out_;
  std::vector<Level> levels_;
  bool after_key_ = false;
};

class JsonError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A parsed document. Objects keep their members in document order.
class JsonValue {
 public:
  using Array = std::vector<JsonValue>;
  using Object = std::vector<std::pair<std::string, JsonValue>>;

  JsonValue() = default;
  explicit JsonValue(std::nullptr_t) {}
  explicit JsonValue(bool flag) : data_(flag) {}
  explicit JsonValue(double number) : data_(number) {}
  explicit JsonValue(std::string text) : data_(std::move(text)) {}
  explicit JsonValue(Array items) : data_(std::move(items)) {}
  explicit JsonValue(Object members) : data_(std::move(members)) {}

  [[nodiscard]] bool is_null() const { return std::holds_alternative<std::nullptr_t>(data_); }
  [[nodiscard]] bool is_bool() const { return std::holds_alternative<bool>(data_); }
  [[nodiscard]] bool is_number() const { return std::holds_alternative<double>(data_); }
  [[nodiscard]] bool is_string() const { return std::holds_alternative<std::string>(data_); }
  [[nodiscard]] bool is_array() const { return std::holds_alternative<Array>(data_); }
  [[nodiscard]] bool is_object() const { return std::holds_alternative<Object>(data_); }

  // Typed access; throws JsonError naming the expected type.
  [[nodiscard]] bool as_bool() const;
  [[nodiscard]] double as_number() const;
  [[nodiscard]] const std::string& as_string() const;
  [[nodiscard]] const Array& as_array() const;
  [[nodiscard]] const Object& as_object() const;

  // Member of an object, nullptr when absent (throws if not an object).
  [[nodiscard]] const JsonValue* find(std::string_view name) const;
  // Member that must exist; throws JsonError naming it.
  [[nodiscard]] const JsonValue& at(std::string_view name) const;

 private:
  std::variant<std::nullptr_t, bool, double, std::string, Array, Object> data_;
};

// Strict RFC 8259 parsing of one document (surrounding whitespace allowed).
// Errors name the byte offset and what was expected.
JsonValue parse_json(std::string_view text);

}  // namespace spmv::grade
