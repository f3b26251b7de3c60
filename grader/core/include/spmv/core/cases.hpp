// Test cases: the matrices a grading run uses, described by a case directory.
//
// A case directory holds Matrix Market files (.mtx, .mtx.gz) and an optional
// manifest, `cases.ini`:
//
//   # a comment line (';' works too)
//   [poisson_2d]                          ; the case name
//   generator = stencil2d nx=512 ny=512 seed=11
//   why = 5-point Poisson stencil: short, regular rows
//   weight = 2                            ; default 1
//   visibility = visible                  ; visible | hidden | after_due_date | after_published
//   tags = regular, stencil               ; comma-separated
//   tolerance_c = 4                       ; overrides ToleranceOptions::c
//
//   [full_storage_symmetric]
//   file = bcsstk01.mtx
//   upper_triangle = mirror               ; reject (default) | mirror: MatrixMarketOptions
//   allow_nonfinite = false               ; false (default) | true: MatrixMarketOptions
//
//   [textbook_fig14_1]
//   file = textbook_fig14_1.mtx           ; relative to the directory
//   why = the textbook's worked example
//
// Each section needs exactly one of `file` and `generator`; the reader's keys
// (upper_triangle, allow_nonfinite) go with `file` only. The file is read by
// ini::read_file (spmv/core/ini.hpp): a ';' or '#' starts a comment at the
// beginning of a line or after whitespace, so "issue#3" in a value is kept;
// a case given twice is an error. Case names use letters, digits, '_', '-'
// and '.'.
//
// Every .mtx/.mtx.gz file directly in the directory that no `file =` line
// names is a case of its own (name: the file name without .mtx/.mtx.gz,
// weight 1, visible, no tags), so dropping a file into the directory adds a
// case. Any problem in the manifest throws CaseError naming
// "<dir>/cases.ini:<line>".
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "spmv/core/formats.hpp"
#include "spmv/core/matrix_market.hpp"

namespace spmv {

// A case directory or manifest is malformed.
class CaseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A binary CSR file is missing, truncated, corrupt or of another version.
class CsrCacheError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr std::string_view kCaseManifestName = "cases.ini";

struct TestCase {
  std::string name;
  std::filesystem::path file;  // a Matrix Market file; empty for a generator case
  std::string generator;       // a generator spec (generators.hpp); empty for a file case
  std::string why;             // what the case exercises, for reports
  double weight = 1;
  std::string visibility = "visible";  // a Gradescope visibility
  std::vector<std::string> tags;
  std::optional<double> tolerance_c;
  MatrixMarketOptions read_options;  // how `file` is read (upper_triangle, allow_nonfinite)
  // Where the case is defined ("<dir>/cases.ini:<line>" or the file's path),
  // for messages.
  std::string origin;
};

// `dir_or_file`: a case directory, a manifest file (*.ini, whose directory
// is the case directory) or a single .mtx/.mtx.gz file (one case). Returns
// the cases sorted by name; an empty directory gives none. Generator specs
// are checked with gen::parse_spec, file names for existence.
std::vector<TestCase> load_cases(const std::filesystem::path& dir_or_file);

// Files directly in a case directory whose names look like matrices but
// that no case reads (big.MTX, a.mtx.bz2, a.mtx.txt, a.mm): a matrix that
// would be left out without a word. Sorted; empty for a file or a missing
// directory.
std::vector<std::filesystem::path> unread_matrix_files(const std::filesystem::path& dir);

// Files below a case directory's subfolders (at any depth, links not
// followed) whose names look like matrices and that no "file =" line of its
// cases.ini names: cases are the folder's own files and its manifest's
// sections, so these would be left out without a word. Sorted; empty for a
// file or a missing directory.
std::vector<std::filesystem::path> subfolder_matrix_files(const std::filesystem::path& dir);

// A file case reads its file. A generator case is generated once and cached
// in `cache_dir` (created if needed; empty: no cache) as a binary CSR file
// named after a hash of the spec; a cache file that is unreadable, corrupt
// or of another spec is regenerated. A cache that cannot be written is
// skipped: it only saves time.
CsrMatrix load_case_matrix(const TestCase& test_case, const std::filesystem::path& cache_dir);

// The cache file load_case_matrix uses for `generator_spec` in `cache_dir`.
// Specs that differ only in spacing or key order share it.
std::filesystem::path generator_cache_path(const std::string& generator_spec, const std::filesystem::path& cache_dir);

// Binary CSR files, host byte order (little-endian in practice):
//   "SPMVCSR\0" | u32 version | u32 label bytes | i64 rows | i64 cols |
//   i64 nnz | label | row_ptr (i32 x rows+1) | col_idx (i32 x nnz) |
//   values (f32 x nnz) | u64 checksum of all preceding bytes.
// `label` records what the file holds (the cache stores the spec there).
// The file is written under a temporary name and renamed, so a reader never
// sees a partial file. Errors throw CsrCacheError naming the file.
void save_csr_binary(const std::filesystem::path& path, const CsrMatrix& a, std::string_view label = {});
// Checks the size against the header and the checksum before returning.
CsrMatrix load_csr_binary(const std::filesystem::path& path, std::string* label = nullptr);

}  // namespace spmv
