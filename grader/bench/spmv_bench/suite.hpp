// The matrices spmv-bench runs: the built-in suite of generated matrices
// and any the command line adds (Matrix Market files, generator specs).
#pragma once

#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "spmv/core/formats.hpp"

namespace spmv::bench {

// One matrix class of the suite. The full size is beyond the H100's 50 MB
// L2 (over 20M entries, so over 160 MB of values and column indices) so that
// the matrix streams from device memory on every call; the quick size is a
// smoke test of the same shape.
struct SuiteEntry {
  std::string_view name;        // short label, also used in tables
  std::string_view spec;        // generator spec, full size
  std::string_view quick_spec;  // generator spec for --quick
  std::string_view exercises;   // what the class stresses
  // Regular rows (stencils, bands): the matrix streams, and a kernel is
  // held to a share of a same-size copy's bandwidth.
  bool regular = false;
};

std::span<const SuiteEntry> benchmark_suite();

// Width of a matrix label in tables; longer labels are cut.
inline constexpr std::size_t kLabelWidth = 10;

// The suites a matrix can belong to: the built-in generated matrices
// (--suite all or a name), the real matrices (--suite real), or neither
// (--matrix, --spec).
inline constexpr std::string_view kSyntheticSuite = "synthetic";
inline constexpr std::string_view kRealSuite = "real";

// The halves the real suite is split into, once, by a rule on the matrices
// alone (tools/real-matrices.tsv says which and how): the rule's thresholds
// are set on the tuning half, and the validation half checks them.
inline constexpr std::string_view kTuningHalf = "tuning";
inline constexpr std::string_view kValidationHalf = "validation";

// A matrix to benchmark: where it comes from and how to get it.
struct MatrixSource {
  std::string label;   // short, unique within a run
  std::string origin;  // the generator spec or the file path
  bool from_file = false;
  std::string suite;     // kSyntheticSuite, kRealSuite or empty
  std::string kind;      // real matrices: fem, circuit, network, road, ...
  std::string half;      // real matrices: kTuningHalf or kValidationHalf
  bool regular = false;  // SuiteEntry::regular
  // A generator of spmv-bench's own (the threshold sweep's), used instead
  // of `origin` when set; `origin` then describes it.
  std::function<CsrMatrix()> generate;

  [[nodiscard]] CsrMatrix load() const;
};

// The default folder of the real matrices, as tools/fetch-matrices writes
// it: matrices/real under the current directory.
inline constexpr std::string_view kDefaultRealFolder = "matrices/real";

struct SourceRequest {
  std::vector<std::string> suite_names;  // "all", "real" or suite entry names
  std::vector<std::filesystem::path> matrix_files;
  std::vector<std::string> specs;
  bool quick = false;
  // Where --suite real finds index.tsv (tools/fetch-matrices writes it:
  // name, kind, collection name, half, file, tab-separated, '#' comments).
  std::filesystem::path real_folder{kDefaultRealFolder};
};

// The real matrices listed in folder/index.tsv, in its order, each with its
// half. Throws std::invalid_argument naming the index or the line that is
// wrong (an index from before the split lacks the half: fetch again), or a
// listed file that is missing (run tools/fetch-matrices).
std::vector<MatrixSource> real_suite(const std::filesystem::path& folder);

// The sources in order: suite entries, then files, then specs. Labels are
// made unique. Throws std::invalid_argument for an unknown suite name or a
// malformed spec (before any matrix is built), naming it.
std::vector<MatrixSource> resolve_sources(const SourceRequest& request);

// Writes `sources` as a case folder spmv-grade reads: folder/cases.ini with
// one case per source (named by its label, any character a case name cannot
// hold made '-'; a generator spec, or a Matrix
// Market file copied into the folder). Throws std::runtime_error naming the
// file it could not write.
void write_case_folder(const std::vector<MatrixSource>& sources, const std::filesystem::path& folder);

}  // namespace spmv::bench
