// Matrix Market (.mtx, .mtx.gz) reading and writing.
//
// Reads `coordinate` and `array` files of field real, integer or pattern
// (pattern entries get value 1) and symmetry general, symmetric or
// skew-symmetric (the other triangle is mirrored, negated for skew; a
// symmetric file stores the lower triangle only, unless
// MatrixMarketOptions::upper_triangle says otherwise).
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

// What a symmetric or skew-symmetric coordinate file may do with an entry
// of its upper triangle (row < column).
enum class UpperTriangle {
  // Refuse it: the format stores the lower triangle only.
  kReject,
  // Accept entries of either triangle and mirror each. A place given from
  // both sides, (i, j) and (j, i), counts once: the two must agree (be
  // equal, or opposite for skew-symmetric) and are then one entry, or the
  // file is refused naming both. Duplicates on one side are summed, as in
  // any file. This reads a file that stores the whole matrix, or some
  // entries above and some below the diagonal.
  kMirror,
};

struct MatrixMarketOptions {
  bool allow_nonfinite = false;  // accept NaN/Inf values (an error by default)
  UpperTriangle upper_triangle = UpperTriangle::kReject;
};

struct MatrixMarketHeader {
  std::string format;                            // "coordinate" | "array"
  std::string field;                             // "real" | "integer" | "pattern"
  std::string symmetry;                          // "general" | "symmetric" | "skew-symmetric"
  std::int64_t rows = 0, cols = 0, entries = 0;  // as declared
};

// Parses text already in memory; `source` names it in errors.
CsrMatrix parse_matrix_market(std::string_view text, const std::string& source, const MatrixMarketOptions& options = {},
                              MatrixMarketHeader* header = nullptr);

// Reads a file (.gz decompressed). Errors name the path.
CsrMatrix read_matrix_market(const std::filesystem::path& path, const MatrixMarketOptions& options = {},
                             MatrixMarketHeader* header = nullptr);

// Writes `coordinate real general`, 1-based, values with enough digits to
// read back bit-exact (%.9g). `comment` lines are prefixed with '%'.
void write_matrix_market(const std::filesystem::path& path, const CsrMatrix& a, const std::string& comment = {});
std::string format_matrix_market(const CsrMatrix& a, const std::string& comment = {});

}  // namespace spmv
