// Reading works on the whole text in memory (a plain file or a decompressed
// .gz alike): the banner and the size line fix the shape, mm_scanner.hpp turns
// each entry line into (row, column, value), and mm_assemble.cpp builds the
// CSR arrays from those triplets.

#include "spmv/core/matrix_market.hpp"

#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "mm_assemble.hpp"
#include "mm_scanner.hpp"
#include "spmv/core/memory_fit.hpp"

namespace spmv {
namespace {

using mm::lowercase;
using mm::Mirror;
using mm::quote;
using mm::Scanner;

constexpr std::int64_t kIndexMax = std::numeric_limits<index_t>::max();
// The shortest entry line ("1 1\n"): a declared count is capped at what the
// remaining text could hold before anything is reserved for it.
constexpr std::size_t kMinEntryBytes = 4;
// Large enough that read/gzread/fwrite call overhead disappears.
constexpr std::size_t kIoChunkBytes = std::size_t{1} << 20;

enum class Format { coordinate, array };
enum class Field { real, integer, pattern };

class Reader {
 public:
  Reader(std::string_view text, const std::string& source, const MatrixMarketOptions& options)
      : scanner_(text, source), options_(options) {}

  CsrMatrix read(MatrixMarketHeader* header_out) {
    read_banner();
    read_size_line();
    check_memory();
    const auto rows = static_cast<index_t>(header_.rows);
    const auto cols = static_cast<index_t>(header_.cols);
    // With upper_triangle = mirror, each side is collected unmirrored and
    // the two are merged (and mirrored) at the end.
    mirror_upper_ =
        options_.upper_triangle == UpperTriangle::kMirror && mirror_ != Mirror::none && format_ == Format::coordinate;
    entries_.emplace(rows, cols, mirror_upper_ ? Mirror::none : mirror_);
    if (mirror_upper_) upper_entries_.emplace(rows, cols, Mirror::none);
    entries_->reserve(static_cast<std::size_t>(std::min<std::uint64_t>(static_cast<std::uint64_t>(header_.entries),
                                                                       scanner_.remaining_bytes() / kMinEntryBytes)));
    if (format_ == Format::coordinate) {
      read_coordinate_entries();
    } else {
      read_array_entries();
    }
    expect_no_more_entries();
    CsrMatrix csr = mirror_upper_ ? merge_sides() : std::move(*entries_).to_csr();
    if (!options_.allow_nonfinite) reject_nonfinite_sums(csr);
    if (header_out != nullptr) *header_out = header_;
    return csr;
  }

 private:
  void read_banner() {
    scanner_.skip_prefix("\xEF\xBB\xBF");  // a UTF-8 byte order mark some editors add
    scanner_.skip_blanks();
    if (lowercase(scanner_.take_token()) != "%%matrixmarket") {
      scanner_.fail("banner '%%MatrixMarket matrix <format> <field> <symmetry>'", scanner_.found_line());
    }
    expect_keyword("object 'matrix'", {"matrix"});
    header_.format = expect_keyword("format 'coordinate' or 'array'", {"coordinate", "array"});
    header_.field = expect_keyword("field 'real', 'integer' or 'pattern'", {"real", "integer", "pattern"},
                                   {"complex", "complex values are not supported"});
    header_.symmetry = expect_keyword("symmetry 'general', 'symmetric' or 'skew-symmetric'",
                                      {"general", "symmetric", "skew-symmetric"},
                                      {"hermitian", "hermitian matrices are not supported"});
    format_ = header_.format == "array" ? Format::array : Format::coordinate;
    field_ = header_.field == "pattern" ? Field::pattern : header_.field == "integer" ? Field::integer : Field::real;
    mirror_ = header_.symmetry == "symmetric"        ? Mirror::symmetric
              : header_.symmetry == "skew-symmetric" ? Mirror::skew
                                                     : Mirror::none;
    if (format_ == Format::array && field_ == Field::pattern) {
      scanner_.fail("field 'real' or 'integer' for array format", quote(header_.field));
    }
    if (field_ == Field::pattern && mirror_ == Mirror::skew) {
      scanner_.fail("symmetry 'general' or 'symmetric' for a pattern matrix", quote(header_.symmetry));
    }
    scanner_.end_line("end of the banner after the symmetry");
  }

  struct Unsupported {
    std::string_view keyword;
    std::string_view reason;
  };

  // The next banner token, lowercased, if it is one of `accepted`.
  std::string expect_keyword(std::string_view expected, std::initializer_list<std::string_view> accepted,
                             Unsupported unsupported = {}) {
    const char* at = scanner_.position();
    std::string keyword = lowercase(scanner_.take_token());
    if (std::find(accepted.begin(), accepted.end(), keyword) != accepted.end()) return keyword;
    std::string found = scanner_.found_token(at);
    if (!unsupported.keyword.empty() && keyword == unsupported.keyword) {
      found += " (" + std::string(unsupported.reason) + ")";
    }
    scanner_.fail(expected, found);
  }

  void read_size_line() {
    const bool coordinate = format_ == Format::coordinate;
    const std::string_view expected =
        coordinate ? "size line '<rows> <columns> <entries>'" : "size line '<rows> <columns>' (array format)";
    if (!scanner_.next_content_line()) scanner_.fail(expected, "end of file");
    size_line_ = scanner_.line();
    std::uint64_t rows = 0;
    std::uint64_t cols = 0;
    std::uint64_t entries = 0;
    if (!scanner_.take_unsigned(rows) || !scanner_.take_unsigned(cols) ||
        (coordinate && !scanner_.take_unsigned(entries)) || !scanner_.at_line_end()) {
      scanner_.fail(expected, scanner_.found_line());
    }
    header_.rows = checked_extent(rows, "rows");
    header_.cols = checked_extent(cols, "columns");
    if (mirror_ != Mirror::none && rows != cols) {
      scanner_.fail("a square matrix for symmetry '" + header_.symmetry + "'",
                    std::to_string(rows) + " x " + std::to_string(cols));
    }
    header_.entries = coordinate ? static_cast<std::int64_t>(entries) : array_value_count();
    scanner_.end_line(expected);
  }

  // Before anything of the declared size is allocated: the shape, with the
  // entries the rest of the text can hold at most (mirrored ones twice),
  // must fit what a case may use on this machine (memory_fit.hpp).
  void check_memory() const {
    const auto text_can_hold = static_cast<std::int64_t>(
        std::min<std::uint64_t>(scanner_.remaining_bytes() / kMinEntryBytes, static_cast<std::uint64_t>(kIndexMax)));
    std::int64_t entries = std::min(header_.entries, text_can_hold);
    if (mirror_ != Mirror::none) entries *= 2;
    const std::string problem = memory_problem({header_.rows, header_.cols, entries}, machine_memory());
    if (problem.empty()) return;
    scanner_.fail_at(size_line_, "a size this machine can hold",
                     "'" + std::to_string(header_.rows) + " " + std::to_string(header_.cols) +
                         (format_ == Format::coordinate ? " " + std::to_string(header_.entries) : std::string()) +
                         "': " + problem + "; is the size line mistyped?");
  }

  std::int64_t checked_extent(std::uint64_t extent, const char* what) const {
    if (extent > static_cast<std::uint64_t>(kIndexMax)) {
      scanner_.fail(std::string(what) + " at most " + std::to_string(kIndexMax) + " (int32 indices)",
                    quote(std::to_string(extent)));
    }
    return static_cast<std::int64_t>(extent);
  }

  // Values an array file holds: all of them, or the lower triangle column
  // by column (without the diagonal when skew-symmetric).
  [[nodiscard]] std::int64_t array_value_count() const {
    const std::int64_t n = header_.rows;
    switch (mirror_) {
      case Mirror::none: return header_.rows * header_.cols;
      case Mirror::symmetric: return n * (n + 1) / 2;
      case Mirror::skew: return n > 0 ? n * (n - 1) / 2 : 0;
    }
    return 0;
  }

  void read_coordinate_entries() {
    const std::string_view after_entry = field_ == Field::pattern
                                             ? "end of line after the column index (pattern entries have no value)"
                                             : "end of line after the value";
    const auto rows = static_cast<index_t>(header_.rows);
    const auto cols = static_cast<index_t>(header_.cols);
    for (std::int64_t found = 0; found < header_.entries; ++found) {
      if (!scanner_.next_content_line()) fail_too_few(found);
      const index_t row = read_index(rows, "row");
      const index_t col = read_index(cols, "column");
      const value_t value = field_ == Field::pattern ? value_t{1} : read_value();
      add_entry(row, col, value);
      scanner_.end_line(after_entry);
    }
  }

  void read_array_entries() {
    const auto rows = static_cast<index_t>(header_.rows);
    const auto cols = static_cast<index_t>(header_.cols);
    std::int64_t found = 0;
    for (index_t col = 0; col < cols; ++col) {
      const index_t first_row = mirror_ == Mirror::none ? 0 : mirror_ == Mirror::symmetric ? col : col + 1;
      for (index_t row = first_row; row < rows; ++row) {
        if (!scanner_.next_content_line()) fail_too_few(found);
        add_entry(row, col, read_value());
        scanner_.end_line("end of line after the value (array format has one value per line)");
        ++found;
      }
    }
  }

  // A 1-based index token in 1..extent, returned 0-based.
  index_t read_index(index_t extent, const char* what) {
    const char* token = scanner_.position();
    std::uint64_t index = 0;
    if (!scanner_.take_unsigned(index) || index == 0 || index > static_cast<std::uint64_t>(extent)) {
      fail_index(token, extent, what);
    }
    return static_cast<index_t>(index - 1);
  }

  [[noreturn, gnu::cold, gnu::noinline]] void fail_index(const char* token, index_t extent, const char* what) const {
    if (extent == 0) {
      scanner_.fail(std::string("no entries (the matrix has 0 ") + what + "s)", scanner_.found_token(token));
    }
    scanner_.fail(std::string("a ") + what + " index in 1.." + std::to_string(extent), scanner_.found_token(token));
  }

  value_t read_value() {
    const char* token = scanner_.position();
    value_t value = 0;
    if (field_ == Field::integer) {
      std::int64_t integer = 0;
      if (!scanner_.take_integer(integer)) fail_value(token);
      value = static_cast<value_t>(integer);
    } else if (!scanner_.take_real(value)) {
      fail_value(token);
    }
    if (!options_.allow_nonfinite && !std::isfinite(value)) fail_nonfinite(token);
    return value;
  }

  [[noreturn, gnu::cold, gnu::noinline]] void fail_value(const char* token) const {
    scanner_.fail(field_ == Field::integer ? "an integer value" : "a real value", scanner_.found_token(token));
  }

  [[noreturn, gnu::cold, gnu::noinline]] void fail_nonfinite(const char* token) const {
    scanner_.fail(
        "a finite fp32 value (NaN and Inf need allow_nonfinite = true in the case's cases.ini "
        "section)",
        scanner_.found_token(token));
  }

  void add_entry(index_t row, index_t col, value_t value) {
    const bool upper = mirror_ != Mirror::none && row < col;
    if (mirror_ != Mirror::none && ((upper && !mirror_upper_) || (row == col && mirror_ == Mirror::skew))) {
      fail_triangle(row, col);
    }
    // Checked before adding: past the limit the row counts would overflow.
    if (stored_entries() > kIndexMax - 2) check_stored_entries_near_limit(row, col);
    if (upper) {
      // Kept at its partner's place below the diagonal, as the lower
      // triangle would store it.
      upper_entries_->add(col, row, mirror_ == Mirror::skew ? -value : value);
    } else {
      entries_->add(row, col, value);
    }
  }

  // Entries the CSR will hold at most (mirrored partners included). With
  // both sides collected unmirrored, every entry may become two.
  [[nodiscard]] std::int64_t stored_entries() const {
    if (!mirror_upper_) return entries_->stored_entries();
    return 2 * (entries_->stored_entries() + upper_entries_->stored_entries());
  }

  CsrMatrix merge_sides() {
    const CsrMatrix lower = std::move(*entries_).to_csr();
    const CsrMatrix upper = std::move(*upper_entries_).to_csr();
    return mm::merge_triangles(lower, upper, mirror_, [this](index_t row, index_t col, value_t low, value_t up) {
      fail_conflict(row, col, low, up);
    });
  }

  // The lines are gone by then: the message names both places and values.
  [[noreturn, gnu::cold, gnu::noinline]] void fail_conflict(index_t row, index_t col, value_t lower,
                                                            value_t upper) const {
    const bool skew = mirror_ == Mirror::skew;
    const auto place = [](index_t i, index_t j) {
      return "(" + std::to_string(i + 1) + ", " + std::to_string(j + 1) + ")";
    };
    const auto text = [](value_t v) {
      char buffer[32];
      std::snprintf(buffer, sizeof buffer, "%.9g", static_cast<double>(v));
      return std::string(buffer);
    };
    scanner_.fail_at(0,
                     "entries " + place(row, col) + " and " + place(col, row) + " of a " + header_.symmetry +
                         " matrix, stored on both sides (upper_triangle = mirror), to " +
                         (skew ? "be opposite" : "be equal"),
                     text(lower) + " and " + text(skew ? -upper : upper));
  }

  [[noreturn, gnu::cold, gnu::noinline]] void fail_triangle(index_t row, index_t col) const {
    if (row < col) {
      scanner_.fail("an entry in the lower triangle (row >= column) of a " + header_.symmetry +
                        " matrix (a file that stores both triangles needs upper_triangle = mirror in "
                        "the case's cases.ini section)",
                    scanner_.found_line());
    }
    scanner_.fail("an off-diagonal entry (a skew-symmetric matrix has a zero diagonal)", scanner_.found_line());
  }

  [[gnu::cold, gnu::noinline]] void check_stored_entries_near_limit(index_t row, index_t col) const {
    const int adding = mirror_ != Mirror::none && (row != col || mirror_upper_) ? 2 : 1;
    if (stored_entries() + adding <= kIndexMax) return;
    scanner_.fail(
        "at most " + std::to_string(kIndexMax) + " stored entries (int32 indices; mirrored entries count twice)",
        "one more: " + scanner_.found_line());
  }

  [[noreturn]] void fail_too_few(std::int64_t found) const {
    scanner_.fail(std::to_string(header_.entries) + " entries (declared on line " + std::to_string(size_line_) + ")",
                  std::to_string(found) + " before end of file");
  }

  void expect_no_more_entries() {
    if (scanner_.next_content_line()) {
      scanner_.fail("end of file after " + std::to_string(header_.entries) + " entries (declared on line " +
                        std::to_string(size_line_) + ")",
                    scanner_.found_line());
    }
  }

  // Finite entries can still sum to infinity where duplicates are merged;
  // by then the lines are gone, so the message names the row and column.
  void reject_nonfinite_sums(const CsrMatrix& csr) const {
    const auto bad = std::find_if(csr.values.begin(), csr.values.end(), [](value_t v) { return !std::isfinite(v); });
    if (bad == csr.values.end()) return;
    const auto k = static_cast<index_t>(bad - csr.values.begin());
    const auto row =
        static_cast<index_t>(std::upper_bound(csr.row_ptr.begin(), csr.row_ptr.end(), k) - csr.row_ptr.begin() - 1);
    scanner_.fail_at(0, "duplicate entries summing to a finite fp32 value",
                     std::to_string(*bad) + " at row " + std::to_string(row + 1) + ", column " +
                         std::to_string(csr.col_idx[static_cast<std::size_t>(k)] + 1));
  }

  Scanner scanner_;
  const MatrixMarketOptions& options_;
  MatrixMarketHeader header_;
  Format format_ = Format::coordinate;
  Field field_ = Field::real;
  Mirror mirror_ = Mirror::none;
  std::int64_t size_line_ = 0;
  std::optional<mm::TripletBuffer> entries_;
  bool mirror_upper_ = false;                       // upper_triangle = mirror, and it applies
  std::optional<mm::TripletBuffer> upper_entries_;  // then: the upper triangle's entries
};

[[noreturn]] void fail_io(const std::filesystem::path& path, std::string_view expected, const std::string& found) {
  throw MatrixMarketError(path.string(), 0, "expected " + std::string(expected) + ", found " + found);
}

std::string errno_text() { return std::string("'") + std::strerror(errno) + "'"; }

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};
using FilePtr = std::unique_ptr<std::FILE, FileCloser>;

// The text of a file, growing as it is read and never zero-filled first
// (a std::string would write every byte twice).
class TextBuffer {
 public:
  explicit TextBuffer(std::size_t capacity)
      : data_(std::make_unique_for_overwrite<char[]>(capacity)), capacity_(capacity) {}

  // Reads through read(destination, room) -> bytes read (0 at the end)
  // until the end, doubling the buffer whenever it is full.
  template <class Read>
  void read_all(Read&& read) {
    for (;;) {
      if (capacity_ - size_ < kIoChunkBytes) grow();
      const std::size_t got = read(data_.get() + size_, capacity_ - size_);
      if (got == 0) return;
      size_ += got;
    }
  }

  [[nodiscard]] std::string_view view() const { return {data_.get(), size_}; }

 private:
  void grow() {
    capacity_ = std::max(2 * capacity_, size_ + kIoChunkBytes);
    auto bigger = std::make_unique_for_overwrite<char[]>(capacity_);
    std::memcpy(bigger.get(), data_.get(), size_);
    data_ = std::move(bigger);
  }

  std::unique_ptr<char[]> data_;
  std::size_t capacity_;
  std::size_t size_ = 0;
};

TextBuffer read_plain_file(const std::filesystem::path& path) {
  const FilePtr file(std::fopen(path.c_str(), "rb"));
  if (!file) fail_io(path, "a readable file", errno_text());
  std::error_code size_error;
  const auto size = std::filesystem::file_size(path, size_error);
  // One spare chunk, so that a regular file is read in one call and the
  // call that finds its end needs no growth.
  TextBuffer text(size_error ? kIoChunkBytes : static_cast<std::size_t>(size) + kIoChunkBytes);
  text.read_all([&](char* destination, std::size_t room) {
    const std::size_t got = std::fread(destination, 1, room, file.get());
    if (got == 0 && std::ferror(file.get()) != 0) fail_io(path, "a readable file", errno_text());
    return got;
  });
  return text;
}

struct GzCloser {
  void operator()(gzFile_s* file) const { gzclose(file); }
};

// The decompressed size is unknown up front, so the text grows as it is
// decompressed and nothing is reserved from the header until it is all here.
TextBuffer read_gz_file(const std::filesystem::path& path) {
  const std::unique_ptr<gzFile_s, GzCloser> file(gzopen(path.c_str(), "rb"));
  if (!file) fail_io(path, "a readable gzip file", errno_text());
  gzbuffer(file.get(), static_cast<unsigned>(kIoChunkBytes));
  TextBuffer text(kIoChunkBytes);
  text.read_all([&](char* destination, std::size_t room) {
    const int got = gzread(file.get(), destination, static_cast<unsigned>(std::min(room, kIoChunkBytes)));
    int status = Z_OK;
    const char* message = gzerror(file.get(), &status);
    if (got < 0 || (status != Z_OK && status != Z_STREAM_END)) {
      const std::string_view so_far = text.view();
      const auto line = static_cast<std::int64_t>(std::count(so_far.begin(), so_far.end(), '\n')) + 1;
      throw MatrixMarketError(path.string(), line, std::string("expected intact gzip data, found '") + message + "'");
    }
    return static_cast<std::size_t>(got);
  });
  return text;
}

bool has_gz_extension(const std::filesystem::path& path) { return lowercase(path.extension().string()) == ".gz"; }

// std::to_chars(args...) appended to `out`; 32 characters hold any index
// or a nine-digit float.
template <class... Args>
void append_chars(std::string& out, Args... args) {
  char text[32];
  out.append(text, std::to_chars(text, text + sizeof text, args...).ptr);
}

// Writes through `flush` in chunks so that a large matrix is never held
// twice in memory as text.
template <class Flush>
void emit_matrix_market(const CsrMatrix& a, const std::string& comment, Flush&& flush) {
  std::string out = "%%MatrixMarket matrix coordinate real general\n";
  std::string_view rest = comment;
  while (!rest.empty()) {
    const std::size_t newline = std::min(rest.find('\n'), rest.size());
    out += '%';
    out += rest.substr(0, newline);
    out += '\n';
    rest.remove_prefix(std::min(newline + 1, rest.size()));
  }
  out += std::to_string(a.rows) + ' ' + std::to_string(a.cols) + ' ' + std::to_string(a.nnz()) + '\n';
  for (index_t row = 0; row < a.rows; ++row) {
    for (index_t k = a.row_ptr[row]; k < a.row_ptr[row + 1]; ++k) {
      append_chars(out, row + 1);
      out += ' ';
      append_chars(out, a.col_idx[k] + 1);
      out += ' ';
      // Nine significant digits identify every float, as %.9g would print.
      append_chars(out, a.values[k], std::chars_format::general, 9);
      out += '\n';
    }
    if (out.size() >= kIoChunkBytes) {
      flush(out);
      out.clear();
    }
  }
  flush(out);
}

// "<source>:<line>: <message>", or "<source>: <message>" when no line applies.
std::string located_message(const std::string& source, std::int64_t line, const std::string& message) {
  std::string text = source;
  if (line > 0) text.append(":").append(std::to_string(line));
  return text.append(": ").append(message);
}

}  // namespace

MatrixMarketError::MatrixMarketError(std::string source, std::int64_t line, const std::string& message)
    : std::runtime_error(located_message(source, line, message)), source_(std::move(source)), line_(line) {}

CsrMatrix parse_matrix_market(std::string_view text, const std::string& source, const MatrixMarketOptions& options,
                              MatrixMarketHeader* header) {
  return Reader(text, source, options).read(header);
}

CsrMatrix read_matrix_market(const std::filesystem::path& path, const MatrixMarketOptions& options,
                             MatrixMarketHeader* header) {
  const TextBuffer text = has_gz_extension(path) ? read_gz_file(path) : read_plain_file(path);
  return parse_matrix_market(text.view(), path.string(), options, header);
}

std::string format_matrix_market(const CsrMatrix& a, const std::string& comment) {
  std::string text;
  emit_matrix_market(a, comment, [&text](const std::string& chunk) { text += chunk; });
  return text;
}

void write_matrix_market(const std::filesystem::path& path, const CsrMatrix& a, const std::string& comment) {
  const FilePtr file(std::fopen(path.c_str(), "wb"));
  if (!file) fail_io(path, "a writable file", errno_text());
  emit_matrix_market(a, comment, [&](const std::string& chunk) {
    if (std::fwrite(chunk.data(), 1, chunk.size(), file.get()) != chunk.size()) {
      fail_io(path, "a writable file", errno_text());
    }
  });
  if (std::fflush(file.get()) != 0) fail_io(path, "a writable file", errno_text());
}

}  // namespace spmv
