// The grader's JSON is nlohmann::ordered_json (members stay in the order
// they were added), with the few rules its files keep on top of the library:
// how a double is written, how text is made valid, and errors as JsonError.
//
// The text is always valid UTF-8 JSON whatever bytes a string holds:
// submission output is arbitrary, and Gradescope rejects the whole report
// if one string is malformed, so each invalid sequence becomes U+FFFD and
// control characters are escaped. Non-finite numbers are written as null.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace spmv::grade {

using Json = nlohmann::ordered_json;

class JsonError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A double as the grader writes it: a whole number a double holds exactly
// as an integer ("100", not "100.0"), any other finite value as the
// library's text that reads back to the same double (Grisu2: the shortest
// but for a few that need 17 digits), a non-finite one (JSON has none) as
// null.
Json json_number(double value);
// null when absent.
Json json_number(const std::optional<double>& value);

// `document` as text: indent 0 on one line (JSON lines), otherwise
// pretty-printed with that many spaces per level.
std::string json_text(const Json& document, int indent = 2);

// Strict RFC 8259 parsing of one document (surrounding whitespace allowed).
// Errors name the byte offset and what was expected.
Json parse_json(std::string_view text);

// Typed reads of a parsed value; each throws JsonError naming the type it
// expected (a boolean is not a number, nor a number a string).
double json_as_number(const Json& value);
const std::string& json_as_string(const Json& value);
bool json_as_bool(const Json& value);
// Member of an object that must exist; throws JsonError naming it.
const Json& json_member(const Json& object, const std::string& name);

}  // namespace spmv::grade
