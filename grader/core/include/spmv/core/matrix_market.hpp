// Matrix Market (.mtx, .mtx.gz) reading and writing.
//
// Reads `coordinate` and `array` files of field real, integer or pattern
// (pattern entries get value 1) and symmetry general, symmetric or
// skew-symmetric (the other triangle is mirrored, negated for skew).
// complex and hermitian are rejected. Duplicate entries are summed; explicit
// zeros are kept. CRLF line ends, comments, blank lines and any spacing are
// accepted; banner keywords are case-insensitive. A file ending in .gz is
// decompressed transparently.
//
// Every error is a MatrixMarketError whose what() reads
//   "<file>:<line>: expected <what>, found <what>"
// The declared entry count is never trusted for allocation beyond what the
// input can hold (an entry needs at least 4 bytes of text).
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

#include "spmv/core/formats.hpp"

namespace spmv {

class MatrixMarketError : public std::runtime_error {
 public:
  MatrixMarketError(std::string source, std::int64_t line, const std::string& message);
  [[nodiscard]] const std::string& source() const { return source_; }
  [[nodiscard]] std::int64_t line() const { return line_; }  // 0: not tied to a line

 private:
  std::string source_;
  std::int64_t line_;
};

struct MatrixMarketOptions {
  bool allow_nonfinite = false;  // accept NaN/Inf values (an error by default)
};

struct MatrixMarketHeader {
  std::string format;    // "coordinate" | "array"
  std::string field;     // "real" | "integer" | "pattern"
  std::string symmetry;  // "general" | "symmetric" | "skew-symmetric"
  std::int64_t rows = 0, cols = 0, entries = 0;  // as declared
};

// Parses text already in memory; `source` names it in errors.
CsrMatrix parse_matrix_market(std::string_view text, const std::string& source,
                              const MatrixMarketOptions& options = {},
                              MatrixMarketHeader* header = nullptr);

// Reads a file (.gz decompressed). Errors name the path.
CsrMatrix read_matrix_market(const std::filesystem::path& path,
                             const MatrixMarketOptions& options = {},
                             MatrixMarketHeader* header = nullptr);

// Writes `coordinate real general`, 1-based, values with enough digits to
// read back bit-exact (%.9g). `comment` lines are prefixed with '%'.
void write_matrix_market(const std::filesystem::path& path, const CsrMatrix& a,
                         const std::string& comment = {});
std::string format_matrix_market(const CsrMatrix& a, const std::string& comment = {});

}  // namespace spmv
