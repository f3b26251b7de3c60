#include "spmv_bench/suite.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "spmv/core/generators.hpp"
#include "spmv/core/matrix_market.hpp"

namespace spmv::bench {
namespace {

// Entries of the full sizes (as generated), all between 20M and 33M:
//   stencil2d  2048^2 grid, 5 per row            21.0M
//   stencil27  100^3 grid, 27 per row            26.5M
//   stencil7   150^3 grid, 7 per row             23.5M
//   banded     1M rows, 25 per row               25.0M
//   random     2M x 2M, 16 per row               32.0M
//   powerlaw   2M x 2M, P(len = k) ~ k^-2        22.3M, longest row 136,849
//   shortrows  12M x 12M, 2 per row              24.0M
//   longrows   12k x 1M, 2000 per row            24.0M
// The quick sizes hold 0.3M-0.5M entries.
constexpr std::array kSuite = {
    SuiteEntry{"stencil2d", "stencil2d nx=2048 ny=2048", "stencil2d nx=300 ny=300",
               "regular short rows, neighbouring x reuse", true},
    SuiteEntry{"stencil27", "stencil3d27 nx=100 ny=100 nz=100", "stencil3d27 nx=24 ny=24 nz=24",
               "regular rows of 27, three bands of nine", true},
    SuiteEntry{"stencil7", "stencil3d7 nx=150 ny=150 nz=150", "stencil3d7 nx=40 ny=40 nz=40",
               "regular rows of 7, far-apart bands", true},
    SuiteEntry{"banded", "banded n=1000000 half_bandwidth=12", "banded n=20000 half_bandwidth=12",
               "dense band of 25, contiguous x", true},
    SuiteEntry{"random", "random rows=2000000 cols=2000000 per_row=16", "random rows=30000 cols=30000 per_row=16",
               "equal rows, random x gathers"},
    SuiteEntry{"powerlaw", "powerlaw rows=2000000 cols=2000000 alpha=2 max_row=150000 seed=1",
               "powerlaw rows=40000 cols=40000 alpha=2 max_row=20000 seed=1",
               "skewed rows, a few of over 100k entries: load imbalance"},
    SuiteEntry{"shortrows", "random rows=12000000 cols=12000000 per_row=2", "random rows=200000 cols=200000 per_row=2",
               "two entries per row: row overheads"},
    SuiteEntry{"longrows", "random rows=12000 cols=1000000 per_row=2000", "random rows=200 cols=100000 per_row=2000",
               "few very long rows: too few rows for a thread each"},
};

std::string cut_label(std::string label) {
  if (label.size() > kLabelWidth) label.resize(kLabelWidth);
  return label;
}

// Appends #2, #3, ... to repeated labels, keeping them within the width.
void make_labels_unique(std::vector<MatrixSource>& sources) {
  std::set<std::string> taken;
  for (MatrixSource& source : sources) {
    const std::string base = source.label;
    for (int n = 2; taken.contains(source.label); ++n) {
      std::string suffix(1, '#');  // not "#" + to_string(n): GCC 12 -Wrestrict misfires on it
      suffix += std::to_string(n);
      std::string label = base.substr(0, kLabelWidth - std::min(kLabelWidth, suffix.size()));
      label.append(suffix);
      source.label = std::move(label);
    }
    taken.insert(source.label);
  }
}

void add_suite_entries(const SourceRequest& request, std::vector<MatrixSource>& sources) {
  for (const std::string& name : request.suite_names) {
    if (name == kRealSuite) {
      for (MatrixSource& source : real_suite(request.real_folder)) sources.push_back(std::move(source));
      continue;
    }
    bool found = false;
    for (const SuiteEntry& entry : kSuite) {
      if (name != "all" && name != entry.name) continue;
      sources.push_back({std::string(entry.name),
                         std::string(request.quick ? entry.quick_spec : entry.spec),
                         false,
                         std::string(kSyntheticSuite),
                         {},
                         {},
                         entry.regular,
                         {}});
      found = true;
    }
    if (!found) {
      std::string names = "all, real";
      for (const SuiteEntry& entry : kSuite) names += ", " + std::string(entry.name);
      throw std::invalid_argument("unknown suite matrix \"" + name + "\"; expected one of: " + names);
    }
  }
}

}  // namespace

std::span<const SuiteEntry> benchmark_suite() { return kSuite; }

std::vector<MatrixSource> real_suite(const std::filesystem::path& folder) {
  const std::filesystem::path index = folder / "index.tsv";
  std::ifstream file(index);
  if (!file) {
    throw std::invalid_argument("--suite real: no " + index.string() +
                                " (tools/fetch-matrices writes it; --real-matrices DIR names another folder)");
  }
  std::vector<MatrixSource> sources;
  int number = 0;
  for (std::string line; std::getline(file, line);) {
    ++number;
    if (line.empty() || line.front() == '#') continue;
    std::vector<std::string> fields;
    std::istringstream stream(line);
    for (std::string field; std::getline(stream, field, '\t');) fields.push_back(field);
    const std::string where = index.string() + ":" + std::to_string(number);
    if (fields.size() != 5) {
      throw std::invalid_argument(where +
                                  ": expected 5 tab-separated fields (name, kind, collection, half, file), found " +
                                  std::to_string(fields.size()) + " (run tools/fetch-matrices again)");
    }
    const std::string& half = fields[3];
    if (half != kTuningHalf && half != kValidationHalf) {
      throw std::invalid_argument(where + ": expected a half of " + std::string(kTuningHalf) + " or " +
                                  std::string(kValidationHalf) + ", found \"" + half + "\"");
    }
    const std::filesystem::path path = folder / fields[4];
    if (!std::filesystem::is_regular_file(path)) {
      throw std::invalid_argument(where + ": no file " + path.string() + " (run tools/fetch-matrices)");
    }
    sources.push_back({cut_label(fields[0]), path.string(), true, std::string(kRealSuite), fields[1], half, false, {}});
  }
  if (sources.empty()) throw std::invalid_argument("--suite real: " + index.string() + " lists no matrix");
  return sources;
}

CsrMatrix MatrixSource::load() const {
  if (generate) return generate();
  return from_file ? read_matrix_market(origin) : gen::generate(origin);
}

std::vector<MatrixSource> resolve_sources(const SourceRequest& request) {
  std::vector<MatrixSource> sources;
  add_suite_entries(request, sources);
  for (const std::filesystem::path& file : request.matrix_files) {
    if (!std::filesystem::is_regular_file(file)) {
      throw std::invalid_argument("--matrix " + file.string() + ": no such file");
    }
    std::string stem = file.filename().string();
    for (const char* extension : {".gz", ".mtx"}) {
      if (stem.ends_with(extension)) stem.resize(stem.size() - std::string_view(extension).size());
    }
    sources.push_back({cut_label(stem), file.string(), true, {}, {}, {}, false, {}});
  }
  for (const std::string& spec : request.specs) {
    sources.push_back({cut_label(gen::parse_spec(spec).kind), spec, false, {}, {}, {}, false, {}});
  }
  // A bad spec fails now, not after minutes spent on the matrices before it.
  for (const MatrixSource& source : sources) {
    if (!source.from_file && !source.generate) gen::parse_spec(source.origin);
  }
  make_labels_unique(sources);
  return sources;
}

void write_case_folder(const std::vector<MatrixSource>& sources, const std::filesystem::path& folder) {
  std::filesystem::create_directories(folder);
  std::ostringstream manifest;
  manifest << "# Written by spmv-bench --write-cases: its matrices as cases for spmv-grade.\n";
  for (const MatrixSource& source : sources) {
    // A case name takes letters, digits, '_', '-' and '.' only ("random#2": "random-2").
    std::string name = source.label;
    std::replace_if(
        name.begin(), name.end(), [](unsigned char c) { return !std::isalnum(c) && c != '_' && c != '-' && c != '.'; },
        '-');
    manifest << "\n[" << name << "]\n";
    if (source.from_file) {
      const std::filesystem::path from(source.origin);
      const std::filesystem::path to = folder / from.filename();
      std::filesystem::copy_file(from, to, std::filesystem::copy_options::overwrite_existing);
      manifest << "file = " << to.filename().string() << "\n";
    } else {
      manifest << "generator = " << source.origin << "\n";
    }
    for (const SuiteEntry& entry : kSuite) {
      if (entry.name == source.label && !entry.exercises.empty()) manifest << "why = " << entry.exercises << "\n";
    }
  }
  const std::filesystem::path path = folder / "cases.ini";
  std::ofstream file(path, std::ios::trunc);
  file << manifest.str();
  file.flush();
  if (!file) throw std::runtime_error(path.string() + ": cannot write");
}

}  // namespace spmv::bench
