#include "model/json.hpp"

#include <cmath>
#include <cstdint>

namespace spmv::grade {

Json json_number(double value) {
  if (!std::isfinite(value)) return nullptr;
  // Every integer up to 2^53 is a double; -0 stays a double, keeping its sign.
  constexpr double kExactIntegers = 9007199254740992.0;
  if (value == std::trunc(value) && std::fabs(value) <= kExactIntegers && !(value == 0 && std::signbit(value))) {
    return static_cast<std::int64_t>(value);
  }
  return value;
}

Json json_number(const std::optional<double>& value) { return value ? json_number(*value) : Json(nullptr); }

std::string json_text(const Json& document, int indent) {
  return document.dump(indent == 0 ? -1 : indent, ' ', false, Json::error_handler_t::replace);
}

namespace {

// The library's message without its "[json.exception.<kind>.<id>] " prefix.
std::string library_message(const Json::exception& e) {
  const std::string text = e.what();
  const auto end = text.find("] ");
  return end == std::string::npos ? text : text.substr(end + 2);
}

}  // namespace

Json parse_json(std::string_view text) {
  try {
    return Json::parse(text.begin(), text.end());
  } catch (const Json::parse_error& e) {
    // e.byte counts the bytes read up to and including the one refused.
    const std::size_t offset = e.byte == 0 ? 0 : e.byte - 1;
    throw JsonError("JSON offset " + std::to_string(offset) + ": " + library_message(e));
  } catch (const Json::exception& e) {
    // A number beyond a double's range (1e999) is valid JSON but not one the grader can hold.
    throw JsonError("JSON: " + library_message(e));
  }
}

double json_as_number(const Json& value) {
  if (!value.is_number()) throw JsonError(std::string("expected a JSON number, found ") + value.type_name());
  return value.get<double>();
}

const std::string& json_as_string(const Json& value) {
  if (!value.is_string()) throw JsonError(std::string("expected a JSON string, found ") + value.type_name());
  return value.get_ref<const std::string&>();
}

bool json_as_bool(const Json& value) {
  if (!value.is_boolean()) throw JsonError(std::string("expected a JSON boolean, found ") + value.type_name());
  return value.get<bool>();
}

const Json& json_member(const Json& object, const std::string& name) {
  if (!object.is_object()) throw JsonError(std::string("expected a JSON object, found ") + object.type_name());
  const auto found = object.find(name);
  if (found == object.end()) throw JsonError("missing member \"" + name + "\"");
  return *found;
}

}  // namespace spmv::grade
