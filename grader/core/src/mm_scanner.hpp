// Text scanning for the Matrix Market reader: a cursor that reads tokens,
// counts lines and turns a failure into a MatrixMarketError that quotes
// what it found. Private to spmv_core.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <system_error>

#include "mm_decimal.hpp"
#include "spmv/core/matrix_market.hpp"

namespace spmv::mm {

// Found text in messages stays readable even for a binary or minified file.
constexpr std::size_t kQuotedCharsMax = 40;
// Longest digit run accepted as an index or size: still exact in 64 bits.
constexpr std::ptrdiff_t kDigitsMax = 18;

inline bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

inline std::string lowercase(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Quoted, cut to kQuotedCharsMax characters, non-printable bytes escaped.
inline std::string quote(std::string_view text) {
  std::string out = "'";
  const std::size_t shown = std::min(text.size(), kQuotedCharsMax);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte >= 0x20 && byte < 0x7f) {
      out += static_cast<char>(byte);
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02X", static_cast<unsigned>(byte));
      out += escaped;
    }
  }
  out += '\'';
  if (text.size() > shown) out += "...";
  return out;
}

// A cursor over the text that knows its line number and reports errors.
// Lines end at '\n'; a '\r' counts as a blank, so CRLF text needs no care.
class Scanner {
 public:
  Scanner(std::string_view text, const std::string& source)
      : p_(text.data()), end_(text.data() + text.size()), line_start_(p_), source_(source) {}

  [[nodiscard]] std::int64_t line() const { return line_; }
  [[nodiscard]] std::size_t remaining_bytes() const { return static_cast<std::size_t>(end_ - p_); }
  [[nodiscard]] bool at_line_end() const { return p_ == end_ || *p_ == '\n'; }

  void skip_prefix(std::string_view prefix) {
    if (remaining_bytes() >= prefix.size() && std::string_view(p_, prefix.size()) == prefix) {
      p_ += prefix.size();
    }
  }

  void skip_blanks() {
    while (p_ != end_ && is_blank(*p_)) ++p_;
  }

  // Moves past blank and comment lines to the first token of the next line
  // with content; false at the end of the text.
  bool next_content_line() {
    for (;;) {
      line_start_ = p_;
      skip_blanks();
      if (p_ == end_) return false;
      if (*p_ == '\n') {
        advance_line(p_ + 1);
      } else if (*p_ == '%') {
        const void* newline = std::memchr(p_, '\n', remaining_bytes());
        if (newline == nullptr) {
          p_ = end_;
          return false;
        }
        advance_line(static_cast<const char*>(newline) + 1);
      } else {
        return true;
      }
    }
  }

  // The token at the cursor (up to a blank or the line end), then blanks.
  std::string_view take_token() {
    const char* first = p_;
    while (!at_line_end() && !is_blank(*p_)) ++p_;
    const std::string_view token(first, static_cast<std::size_t>(p_ - first));
    skip_blanks();
    return token;
  }

  // The take_* functions read one whole token and the blanks after it; on
  // failure they return false and leave the cursor on the token.
  bool take_unsigned(std::uint64_t& value) {
    const char* q = p_;
    std::uint64_t parsed = 0;
    for (; q != end_ && is_decimal_digit(*q); ++q) {
      parsed = parsed * 10 + static_cast<std::uint64_t>(*q - '0');
    }
    if (q == p_ || q - p_ > kDigitsMax || !ends_token(q)) return false;
    value = parsed;
    finish_token(q);
    return true;
  }

  bool take_integer(std::int64_t& value) {
    const char* first = skip_plus_sign(p_);
    const auto [last, status] = std::from_chars(first, end_, value);
    if (last == first || status != std::errc{} || !ends_token(last)) return false;
    finish_token(last);
    return true;
  }

  // Correctly rounded to float, like from_chars<float>, which takes the
  // values the fast path leaves.
  bool take_real(value_t& value) {
    const char* fast_last = nullptr;
    if (parse_plain_decimal(p_, end_, fast_last, value) && ends_token(fast_last)) {
      finish_token(fast_last);
      return true;
    }
    const char* first = skip_plus_sign(p_);
    const auto [last, status] = std::from_chars(first, end_, value);
    if (last == first || !ends_token(last)) return false;
    if (status == std::errc::result_out_of_range) {
      // strtof saturates to infinity or flushes to zero where from_chars
      // only reports the range; the token is short, so the copy is cheap.
      value = std::strtof(std::string(first, last).c_str(), nullptr);
    } else if (status != std::errc{}) {
      return false;
    }
    finish_token(last);
    return true;
  }

  // Requires the line to end here (blanks already skipped) and moves to
  // the next one.
  void end_line(std::string_view expected) {
    if (!at_line_end()) fail_line_end(expected);
    if (p_ != end_) advance_line(p_ + 1);
  }

  [[nodiscard]] const char* position() const { return p_; }

  // What the messages show as "found": the token at `at`, the rest of the
  // line, or the whole current line.
  [[nodiscard]] std::string found_token(const char* at) const {
    const char* last = at;
    while (last != end_ && *last != '\n' && !is_blank(*last)) ++last;
    if (last == at) return at == end_ ? "end of file" : "end of line";
    return quote(std::string_view(at, static_cast<std::size_t>(last - at)));
  }
  [[nodiscard]] std::string found_rest_of_line() const { return found_text(p_); }
  [[nodiscard]] std::string found_line() const { return found_text(line_start_); }

  [[noreturn, gnu::cold, gnu::noinline]] void fail(std::string_view expected, const std::string& found) const {
    fail_at(line_, expected, found);
  }
  [[noreturn, gnu::cold, gnu::noinline]] void fail_at(std::int64_t line, std::string_view expected,
                                                      const std::string& found) const {
    throw MatrixMarketError(source_, line, "expected " + std::string(expected) + ", found " + found);
  }
  [[noreturn, gnu::cold, gnu::noinline]] void fail_line_end(std::string_view expected) const {
    fail(expected, found_rest_of_line());
  }

 private:
  [[nodiscard]] bool ends_token(const char* q) const { return q == end_ || *q == '\n' || is_blank(*q); }

  // from_chars takes no '+'; "+-1" keeps its '+' so that it fails.
  [[nodiscard]] const char* skip_plus_sign(const char* q) const {
    if (q != end_ && *q == '+' && q + 1 != end_ && q[1] != '-') return q + 1;
    return q;
  }

  void finish_token(const char* last) {
    p_ = last;
    skip_blanks();
  }

  void advance_line(const char* next_line_start) {
    ++line_;
    p_ = next_line_start;
    line_start_ = p_;
  }

  [[nodiscard]] std::string found_text(const char* first) const {
    if (first == end_) return "end of file";  // also keeps an empty text's null pointer from memchr
    const void* newline = std::memchr(first, '\n', static_cast<std::size_t>(end_ - first));
    const char* last = newline == nullptr ? end_ : static_cast<const char*>(newline);
    while (first != last && is_blank(*first)) ++first;
    while (last != first && is_blank(last[-1])) --last;
    if (first == last) return first == end_ ? "end of file" : "end of line";
    return quote(std::string_view(first, static_cast<std::size_t>(last - first)));
  }

  const char* p_;
  const char* end_;
  const char* line_start_;
  std::int64_t line_ = 1;
  const std::string& source_;
};

}  // namespace spmv::mm
