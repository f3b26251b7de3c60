// Read throughput of the Matrix Market reader on coordinate text.
//
// Writes a random `coordinate real general` file, checks that it parses to
// the expected shape, then times parse_matrix_market on the text in memory
// and read_matrix_market on the file (best of 3 each) and prints MB/s of
// text. Entries come in random order, three per row on average, values
// printed with nine digits as write_matrix_market does: random rows make
// the CSR assembly's scatter miss the cache at every entry, the reader's
// worst case (files sorted by row or column assemble faster).
//
// Usage: mtx-read-bench [--entries N] [--file PATH] [--keep]
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <filesystem>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

#include "spmv/core/matrix_market.hpp"

namespace {

constexpr int kRepetitions = 3;
// 6M entries of ~27 bytes: ~165 MB, large enough that caches and timer
// resolution do not matter.
constexpr std::int64_t kDefaultEntries = 6'000'000;
constexpr spmv::index_t kDimension = 2'000'000;

struct Options {
  std::int64_t entries = kDefaultEntries;
  std::filesystem::path file;
  bool keep = false;
};

// SplitMix64: deterministic, so every run times the same text.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  spmv::index_t below(spmv::index_t bound) {
    return static_cast<spmv::index_t>(next() % static_cast<std::uint64_t>(bound));
  }
  float symmetric_unit() {  // uniform in [-1, 1)
    return static_cast<float>(static_cast<double>(next() >> 40) / static_cast<double>(1ULL << 23) - 1.0);
  }

 private:
  std::uint64_t state_;
};

template <class... Args>
void append_chars(std::string& out, Args... args) {
  char chars[32];
  out.append(chars, std::to_chars(chars, chars + sizeof chars, args...).ptr);
}

std::string random_coordinate_text(std::int64_t entries) {
  std::string text = "%%MatrixMarket matrix coordinate real general\n% mtx-read-bench random entries\n";
  text += std::to_string(kDimension) + ' ' + std::to_string(kDimension) + ' ' + std::to_string(entries) + '\n';
  text.reserve(text.size() + static_cast<std::size_t>(entries) * 32);
  SplitMix64 random(20240607);
  for (std::int64_t k = 0; k < entries; ++k) {
    append_chars(text, random.below(kDimension) + 1);
    text += ' ';
    append_chars(text, random.below(kDimension) + 1);
    text += ' ';
    append_chars(text, random.symmetric_unit(), std::chars_format::general, 9);
    text += '\n';
  }
  return text;
}

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::FILE* file = std::fopen(path.c_str(), "wb");
  if (file == nullptr || std::fwrite(text.data(), 1, text.size(), file) != text.size() || std::fclose(file) != 0) {
    throw std::runtime_error("cannot write " + path.string());
  }
}

double thread_cpu_seconds() {
  timespec now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

// Wall time, and CPU time of this thread (user + system, page faults
// included): on a shared machine the wall time also counts waiting for a
// core, while the CPU time is what one core spends on the read.
struct Timing {
  double wall_s = std::numeric_limits<double>::infinity();
  double cpu_s = std::numeric_limits<double>::infinity();
};

Timing best_of(const std::function<void()>& run) {
  Timing best;
  for (int r = 0; r < kRepetitions; ++r) {
    const auto wall_start = std::chrono::steady_clock::now();
    const double cpu_start = thread_cpu_seconds();
    run();
    const double cpu = thread_cpu_seconds() - cpu_start;
    const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - wall_start;
    best.wall_s = std::min(best.wall_s, wall.count());
    best.cpu_s = std::min(best.cpu_s, cpu);
  }
  return best;
}

void report(const char* what, const Timing& timing, double megabytes) {
  std::printf("%-38s wall %.3f s = %4.0f MB/s, cpu %.3f s = %4.0f MB/s (best of %d)\n", what, timing.wall_s,
              megabytes / timing.wall_s, timing.cpu_s, megabytes / timing.cpu_s, kRepetitions);
}

// Verify before timing: the shape as written, every entry present unless
// merged with a duplicate (a handful at this density), a valid CSR.
void verify(const spmv::CsrMatrix& a, std::int64_t entries) {
  a.validate();
  const bool shape_ok = a.rows == kDimension && a.cols == kDimension;
  const bool count_ok = a.nnz() <= entries && a.nnz() >= entries - entries / 1000;
  if (!shape_ok || !count_ok) {
    throw std::runtime_error("parsed " + std::to_string(a.rows) + " x " + std::to_string(a.cols) + " with " +
                             std::to_string(a.nnz()) + " entries, expected " + std::to_string(kDimension) + " x " +
                             std::to_string(kDimension) + " with about " + std::to_string(entries));
  }
}

Options parse_options(int argc, char** argv) {
  Options options;
  options.file = std::filesystem::temp_directory_path() / ("mtx-read-bench-" + std::to_string(::getpid()) + ".mtx");
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--entries" && i + 1 < argc) {
      options.entries = std::stoll(argv[++i]);
    } else if (arg == "--file" && i + 1 < argc) {
      options.file = argv[++i];
    } else if (arg == "--keep") {
      options.keep = true;
    } else {
      throw std::invalid_argument("unknown argument '" + std::string(arg) +
                                  "'; usage: mtx-read-bench [--entries N] [--file PATH] [--keep]");
    }
  }
  if (options.entries <= 0) throw std::invalid_argument("--entries must be positive");
  return options;
}

// Removes the benchmark's file on every way out unless asked to keep it.
class FileRemover {
 public:
  FileRemover(std::filesystem::path path, bool keep) : path_(std::move(path)), keep_(keep) {}
  ~FileRemover() {
    std::error_code ignored;
    if (!keep_) std::filesystem::remove(path_, ignored);
  }
  FileRemover(const FileRemover&) = delete;
  FileRemover& operator=(const FileRemover&) = delete;

 private:
  std::filesystem::path path_;
  bool keep_;
};

}  // namespace

int main(int argc, char** argv) {
  try {
    const Options options = parse_options(argc, argv);
    const std::string text = random_coordinate_text(options.entries);
    const FileRemover remover(options.file, options.keep);
    write_file(options.file, text);
    const double megabytes = static_cast<double>(text.size()) / 1e6;
    std::printf("file: %s (%.1f MB, %lld entries)\n", options.file.c_str(), megabytes,
                static_cast<long long>(options.entries));

    verify(spmv::parse_matrix_market(text, options.file.string()), options.entries);
    report("parse_matrix_market (text in memory):",
           best_of([&] { (void)spmv::parse_matrix_market(text, options.file.string()); }), megabytes);
    report("read_matrix_market (file, cached):", best_of([&] { (void)spmv::read_matrix_market(options.file); }),
           megabytes);
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "mtx-read-bench: %s\n", error.what());
    return 1;
  }
}
