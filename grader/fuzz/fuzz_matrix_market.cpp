// libFuzzer target for the Matrix Market reader (built by run-fuzz.sh).
//
// Any input may be rejected with MatrixMarketError. A finding is anything
// else: another exception, a crash or sanitizer report, an accepted matrix
// that is not a valid CSR, or one that does not read back bit-exact after
// format_matrix_market.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "spmv/core/matrix_market.hpp"

namespace {

// A CSR needs rows + 1 offsets whatever its entries, so a size line alone
// can ask for gigabytes legitimately; such inputs would only exercise the
// allocator (and trip -malloc_limit_mb), so the target skips them. Entries
// are bounded by the input's length already.
constexpr std::size_t kMaxSizeDigits = 6;

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// True when the size line (the first line after the banner that is neither
// blank nor a comment, as the reader finds it) holds a number of more than
// kMaxSizeDigits digits.
bool declares_huge_shape(std::string_view text) {
  std::size_t line_start = text.find('\n');
  while (line_start != std::string_view::npos) {
    ++line_start;
    const std::size_t line_end = std::min(text.find('\n', line_start), text.size());
    std::string_view line = text.substr(line_start, line_end - line_start);
    while (!line.empty() && is_blank(line.front())) line.remove_prefix(1);
    if (!line.empty() && line.front() != '%') {
      std::size_t run = 0;
      for (const char c : line) {
        run = (c >= '0' && c <= '9') ? run + 1 : 0;
        if (run > kMaxSizeDigits) return true;
      }
      return false;
    }
    line_start = line_end < text.size() ? line_end : std::string_view::npos;
  }
  return false;
}

[[noreturn]] void finding(const char* what) {
  std::fprintf(stderr, "fuzz_matrix_market: %s\n", what);
  std::abort();
}

bool same_value(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof a) == 0;
}

void check_round_trip(const spmv::CsrMatrix& a) {
  const spmv::CsrMatrix back =
      spmv::parse_matrix_market(spmv::format_matrix_market(a, "round trip"), "round-trip", {.allow_nonfinite = true});
  if (back.rows != a.rows || back.cols != a.cols || back.row_ptr != a.row_ptr || back.col_idx != a.col_idx) {
    finding("written matrix reads back with another shape or structure");
  }
  for (std::size_t k = 0; k < a.values.size(); ++k) {
    if (!same_value(a.values[k], back.values[k])) {
      finding("written matrix reads back with another value");
    }
  }
}

void parse_and_check(std::string_view text, bool allow_nonfinite) {
  spmv::CsrMatrix a;
  try {
    a = spmv::parse_matrix_market(text, "fuzz-input", {.allow_nonfinite = allow_nonfinite});
  } catch (const spmv::MatrixMarketError&) {
    return;
  }
  a.validate();  // a FormatError escapes: libFuzzer reports it as a crash
  check_round_trip(a);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  if (declares_huge_shape(text)) return -1;  // not added to the corpus
  parse_and_check(text, false);
  parse_and_check(text, true);
  return 0;
}
