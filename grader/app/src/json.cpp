#include "json.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace spmv::grade {
namespace {

constexpr std::string_view kReplacementCharacter = "\xEF\xBF\xBD";

// Length of the well-formed UTF-8 sequence at text[i] (1-4), or 0 when the
// bytes there are not one (overlong forms, surrogates and code points past
// U+10FFFF included), following the table of the Unicode standard, ch. 3.
std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const auto continuation = [&](std::size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) {
    return i + k < text.size() && byte(k) >= lo && byte(k) <= hi;
  };
  const unsigned lead = byte(0);
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return continuation(1) ? 2 : 0;
  if (lead >= 0xE0 && lead <= 0xEF) {
    const unsigned lo = lead == 0xE0 ? 0xA0 : 0x80;
    const unsigned hi = lead == 0xED ? 0x9F : 0xBF;
    return continuation(1, lo, hi) && continuation(2) ? 3 : 0;
  }
  if (lead >= 0xF0 && lead <= 0xF4) {
    const unsigned lo = lead == 0xF0 ? 0x90 : 0x80;
    const unsigned hi = lead == 0xF4 ? 0x8F : 0xBF;
    return continuation(1, lo, hi) && continuation(2) && continuation(3) ? 4 : 0;
  }
  return 0;
}

void append_escaped_ascii(std::string& out, char c) {
  switch (c) {
    case '"': out += "\\\""; return;
    case '\\': out += "\\\\"; return;
    case '\n': out += "\\n"; return;
    case '\r': out += "\\r"; return;
    case '\t': out += "\\t"; return;
    case '\b': out += "\\b"; return;
    case '\f': out += "\\f"; return;
    default: break;
  }
  if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
    char code[8];
    std::snprintf(code, sizeof code, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
    out += code;
  } else {
    out += c;
  }
}

}  // namespace

std::string json_quote(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 2);
  out += '"';
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = utf8_sequence_length(text, i);
    if (length == 0) {
      out += kReplacementCharacter;
      ++i;
    } else if (length == 1) {
      append_escaped_ascii(out, text[i]);
      ++i;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  out += '"';
  return out;
}

// ---------------------------------------------------------------- writer

void JsonWriter::newline() {
  if (indent_ == 0) return;
  out_ += '\n';
  out_.append(levels_.size() * static_cast<std::size_t>(indent_), ' ');
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (levels_.empty()) {
    if (!out_.empty()) throw std::logic_error("JsonWriter: a second top-level value");
    return;
  }
  if (levels_.back().object) throw std::logic_error("JsonWriter: a value in an object needs a key");
  if (levels_.back().members++ > 0) out_ += ',';
  newline();
}

JsonWriter& JsonWriter::key(std::string_view name) {
  if (levels_.empty() || !levels_.back().object || after_key_) {
    throw std::logic_error("JsonWriter: key outside an object");
  }
  if (levels_.back().members++ > 0) out_ += ',';
  newline();
  out_ += json_quote(name);
  out_ += indent_ == 0 ? ":" : ": ";
  after_key_ = true;
  return *this;
}

JsonWriter& JsonWriter::begin_object() {
  before_value();
  out_ += '{';
  levels_.push_back({true});
  return *this;
}

JsonWriter& JsonWriter::begin_array() {
  before_value();
  out_ += '[';
  levels_.push_back({false});
  return *this;
}

JsonWriter& JsonWriter::end_object() {
  if (levels_.empty() || !levels_.back().object || after_key_) {
    throw std::logic_error("JsonWriter: end_object without an open object");
  }
  const bool had_members = levels_.back().members > 0;
  levels_.pop_back();
  if (had_members) newline();
  out_ += '}';
  return *this;
}

JsonWriter& JsonWriter::end_array() {
  if (levels_.empty() || levels_.back().object) throw std::logic_error("JsonWriter: end_array without an open array");
  const bool had_members = levels_.back().members > 0;
  levels_.pop_back();
  if (had_members) newline();
  out_ += ']';
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) {
  before_value();
  out_ += json_quote(text);
  return *this;
}

JsonWriter& JsonWriter::value(double number) {
  if (!std::isfinite(number)) return null();
  before_value();
  // Shortest text that reads back to the same double.
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, number);
  out_.append(text, result.ptr);
  return *this;
}

JsonWriter& JsonWriter::value(std::int64_t number) {
  before_value();
  out_ += std::to_string(number);
  return *this;
}

JsonWriter& JsonWriter::value(bool flag) {
  before_value();
  out_ += flag ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::null() {
  before_value();
  out_ += "null";
  return *this;
}

const std::string& JsonWriter::str() const {
  if (!levels_.empty() || after_key_) throw std::logic_error("JsonWriter: document not finished");
  return out_;
}

// ---------------------------------------------------------------- values

bool JsonValue::as_bool() const {
  if (!is_bool()) throw JsonError("expected a JSON boolean");
  return std::get<bool>(data_);
}

double JsonValue::as_number() const {
  if (!is_number()) throw JsonError("expected a JSON number");
  return std::get<double>(data_);
}

const std::string& JsonValue::as_string() const {
  if (!is_string()) throw JsonError("expected a JSON string");
  return std::get<std::string>(data_);
}

const JsonValue::Array& JsonValue::as_array() const {
  if (!is_array()) throw JsonError("expected a JSON array");
  return std::get<Array>(data_);
}

const JsonValue::Object& JsonValue::as_object() const {
  if (!is_object()) throw JsonError("expected a JSON object");
  return std::get<Object>(data_);
}

const JsonValue* JsonValue::find(std::string_view name) const {
  for (const auto& [member, value] : as_object()) {
    if (member == name) return &value;
  }
  return nullptr;
}

const JsonValue& JsonValue::at(std::string_view name) const {
  const JsonValue* found = find(name);
  if (found == nullptr) throw JsonError("missing member \"" + std::string(name) + "\"");
  return *found;
}

// ---------------------------------------------------------------- parser

namespace {

class Parser {
 public:
  explicit Parser(std::string_view text) : text_(text) {}

  JsonValue document() {
    JsonValue result = value(0);
    skip_space();
    if (pos_ != text_.size()) fail("the end of the document");
    return result;
  }

 private:
  // Deeper nesting than any report has: refuses stack-exhausting input.
  static constexpr int kMaxDepth = 256;

  [[noreturn]] void fail(const std::string& expected) const {
    std::string found = pos_ < text_.size() ? "'" + std::string(1, text_[pos_]) + "'" : "the end";
    throw JsonError("JSON offset " + std::to_string(pos_) + ": expected " + expected + ", found " + found);
  }

  void skip_space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\r' || text_[pos_] == '\t')) {
      ++pos_;
    }
  }

  bool consume(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  void expect(char c) {
    if (!consume(c)) fail(std::string("'") + c + "'");
  }

  JsonValue value(int depth) {
    if (depth > kMaxDepth) fail("less deeply nested values");
    skip_space();
    if (pos_ >= text_.size()) fail("a value");
    switch (text_[pos_]) {
      case '{': return object(depth);
      case '[': return array(depth);
      case '"': return JsonValue(string());
      case 't': return literal("true", JsonValue(true));
      case 'f': return literal("false", JsonValue(false));
      case 'n': return literal("null", JsonValue(nullptr));
      default: return number();
    }
  }

  JsonValue literal(std::string_view word, JsonValue result) {
    if (text_.substr(pos_, word.size()) != word) fail("a value");
    pos_ += word.size();
    return result;
  }

  JsonValue object(int depth) {
    expect('{');
    JsonValue::Object members;
    if (consume('}')) return JsonValue(std::move(members));
    do {
      skip_space();
      if (pos_ >= text_.size() || text_[pos_] != '"') fail("a member name");
      std::string name = string();
      expect(':');
      members.emplace_back(std::move(name), value(depth + 1));
    } while (consume(','));
    expect('}');
    return JsonValue(std::move(members));
  }

  JsonValue array(int depth) {
    expect('[');
    JsonValue::Array items;
    if (consume(']')) return JsonValue(std::move(items));
    do {
      items.push_back(value(depth + 1));
    } while (consume(','));
    expect(']');
    return JsonValue(std::move(items));
  }

  JsonValue number() {
    const std::size_t start = pos_;
    const auto digits = [&] {
      const std::size_t from = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      return pos_ - from;
    };
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '0') {
      ++pos_;
    } else if (digits() == 0) {
      pos_ = start;
      fail("a value");
    }
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      if (digits() == 0) fail("a digit after the decimal point");
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (digits() == 0) fail("a digit in the exponent");
    }
    double number = 0;
    const auto result = std::from_chars(text_.data() + start, text_.data() + pos_, number);
    // Out of range (e.g. 1e999) is valid JSON but not a double we can hold.
    if (result.ec != std::errc()) {
      pos_ = start;
      fail("a number within the range of a double");
    }
    return JsonValue(number);
  }

  unsigned hex4() {
    if (pos_ + 4 > text_.size()) fail("four hex digits");
    unsigned code = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = text_[pos_++];
      code <<= 4;
      if (c >= '0' && c <= '9') code |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') code |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') code |= static_cast<unsigned>(c - 'A' + 10);
      else {
        --pos_;
        fail("a hex digit");
      }
    }
    return code;
  }

  static void append_utf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  unsigned escaped_code_point() {
    unsigned code = hex4();
    if (code >= 0xDC00 && code <= 0xDFFF) fail("a high surrogate before a low one");
    if (code >= 0xD800 && code <= 0xDBFF) {
      if (text_.substr(pos_, 2) != "\\u") fail("a low surrogate after a high one");
      pos_ += 2;
      const unsigned low = hex4();
      if (low < 0xDC00 || low > 0xDFFF) fail("a low surrogate after a high one");
      code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
    }
    return code;
  }

  std::string string() {
    ++pos_;  // the opening quote
    std::string out;
    while (true) {
      if (pos_ >= text_.size()) fail("a closing '\"'");
      const char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) fail("an escaped control character");
      if (c != '\\') {
        const std::size_t length = utf8_sequence_length(text_, pos_);
        if (length == 0) fail("valid UTF-8");
        out.append(text_.substr(pos_, length));
        pos_ += length;
        continue;
      }
      ++pos_;
      if (pos_ >= text_.size()) fail("an escape character");
      const char escape = text_[pos_++];
      switch (escape) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': append_utf8(out, escaped_code_point()); break;
        default:
          --pos_;
          fail("a valid escape (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)");
      }
    }
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

}  // namespace

JsonValue parse_json(std::string_view text) { return Parser(text).document(); }

}  // namespace spmv::grade
