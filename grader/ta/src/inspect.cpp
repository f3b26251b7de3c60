#include "case_check.hpp"
#include "commands.hpp"
#include "kernel_run.hpp"
#include "pictures.hpp"
#include "spmv/core/generators.hpp"
#include "spmv/core/matrix_market.hpp"
#include "text_report.hpp"

namespace spmv::ta {
namespace {

// "matrices/arrow.mtx.gz" -> "arrow"; a spec's words joined by '_', its '='
// dropped: "banded n=64" -> "banded_n64".
std::filesystem::path default_prefix(const InspectOptions& options) {
  if (options.file) {
    std::filesystem::path name = options.file->filename();
    if (name.extension() == ".gz") name = name.stem();
    if (name.extension() == ".mtx") name = name.stem();
    return name;
  }
  std::string prefix;
  for (const char c : *options.spec) {
    if (c == ' ') {
      if (!prefix.empty() && prefix.back() != '_') prefix += '_';
    } else if (c != '=' && c != '/') {
      prefix += c;
    }
  }
  return prefix.empty() ? "matrix" : prefix;
}

// A spec goes through the case loader, so a big generated matrix is taken
// from (or stored in) the generator cache like a manifest's.
CsrMatrix load_matrix(const InspectOptions& options) {
  if (options.file) return read_matrix_market(*options.file, options.read_options);
  try {
    gen::parse_spec(*options.spec);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--spec: ") + e.what());
  }
  TestCase spec_case;
  spec_case.name = "spec";
  spec_case.generator = *options.spec;
  spec_case.origin = "--spec";
  return load_case_matrix(spec_case, options.common.cache_dir);
}

// --output names a folder when it ends with '/' or is an existing folder:
// the pictures go inside it under the default prefix. Otherwise it is the
// prefix itself, and its folder is created if needed.
std::filesystem::path picture_prefix(const InspectOptions& options) {
  if (!options.output) return default_prefix(options);
  const std::string& output = options.output->string();
  std::error_code error;
  if (output.ends_with('/') || std::filesystem::is_directory(*options.output, error)) {
    return *options.output / default_prefix(options);
  }
  return *options.output;
}

std::vector<std::filesystem::path> write_pictures(const CsrMatrix& csr, const MatrixStats& stats,
                                                  const InspectOptions& options) {
  if (options.formats.empty()) return {};
  const PictureSize spy = spy_size(csr.rows, csr.cols, options.size);
  const DensityRaster raster = density_raster(csr, spy);
  const PictureSize bars = histogram_size(options.size);
  const std::filesystem::path prefix = picture_prefix(options);
  if (prefix.has_parent_path()) {
    std::error_code error;
    std::filesystem::create_directories(prefix.parent_path(), error);
    if (error) {
      throw std::runtime_error("--output " + options.output->string() + ": cannot create the folder " +
                               prefix.parent_path().string() + ": " + error.message());
    }
  }
  std::vector<std::filesystem::path> written;
  const auto path_of = [&](const char* picture, const char* extension) {
    return std::filesystem::path(prefix.string() + "-" + picture + extension);
  };
  for (const PictureFormat format : options.formats) {
    if (format == PictureFormat::kPng) {
      written.push_back(path_of("spy", ".png"));
      write_file(written.back(), encode_png(render_spy(raster, spy)));
      written.push_back(path_of("rows", ".png"));
      write_file(written.back(), encode_png(render_histogram(stats.histogram, bars)));
    } else {
      written.push_back(path_of("spy", ".svg"));
      write_file(written.back(), spy_svg(raster, spy));
      written.push_back(path_of("rows", ".svg"));
      write_file(written.back(), histogram_svg(stats.histogram, bars));
    }
  }
  return written;
}

}  // namespace

int run_inspect(const InspectOptions& options, std::ostream& out, std::ostream& err) {
  const auto kernels = reference_kernels();
  CsrMatrix csr;
  try {
    csr = load_matrix(options);
    csr.validate();
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {
    err << "problem: " << e.what() << '\n';
    return kExitProblems;
  }
  CheckOptions check_options;
  check_options.limits.max_bytes = static_cast<std::size_t>(options.common.format_limit_bytes);
  const MatrixCheck check = check_matrix(csr, kernels, check_options);

  out << (options.file ? options.file->string() : "generator \"" + *options.spec + "\"") << '\n';
  print_stats(out, check, kernels);
  out << '\n';
  print_histogram(out, check.stats.histogram);
  out << '\n';
  int status = check.problems.empty() ? kExitOk : kExitProblems;
  out.flush();
  for (const auto& problem : check.problems) err << "problem: " << problem << '\n';
  try {
    for (const auto& path : write_pictures(csr, check.stats, options)) out << "wrote " << path.string() << '\n';
  } catch (const std::exception& e) {
    out.flush();
    err << "problem: " << e.what() << '\n';
    status = kExitProblems;
  }
  return status;
}

}  // namespace spmv::ta
