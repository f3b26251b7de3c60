#include "cases/case_data.hpp"

#include "spmv/core/convert.hpp"
#ifndef SPMV_KIT
#include "spmv/core/cpu_spmv.hpp"
#endif
#include "spmv/memory/format_views.hpp"
#include "spmv/plugin/plugin.hpp"
#include "spmv/runner/matrix_image.hpp"
#include "spmv/runner/x_values.hpp"

#include <unistd.h>

#include <bit>
#include <future>
#include <mutex>
#include <optional>
#include <tuple>
#include <type_traits>

namespace spmv::grade {
namespace {

std::uint64_t splitmix64(std::uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t fnv1a(const std::string& text) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

void convert(PreparedCase& p, spmv_format format, const ConversionLimits& limits) {
  const bool known = visit_format(format, [&](auto tag) {
    using Matrix = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<Matrix, CsrMatrix>) {
      std::get<std::optional<Matrix>>(p.forms) = FormatTraits<Matrix>::from_csr(p.csr, limits);
    }
  });
  if (!known) throw ConversionRefused("the grader has no " + std::string(format_name(format)) + " view to build");
}

// A check of one converted format against the golden result of x[0].
template <typename Matrix>
std::string check_format(const PreparedCase& p, const Matrix* matrix, const char* name) {
  if (matrix == nullptr) return {};
  try {
    matrix->validate();
  } catch (const std::exception& e) {
    return std::string(name) + " form is invalid: " + e.what();
  }
#ifdef SPMV_KIT
  // The student kit has no per-format CPU product (cpu_spmv walks each
  // layout as its kernel does: a solution of that kernel), so there every
  // form is validated and only the CSR product, the golden result rounded
  // to fp32, is checked.
  if constexpr (!std::is_same_v<Matrix, CsrMatrix>) return {};
  std::vector<float> y(p.golden[0].y.size());
  for (std::size_t i = 0; i < y.size(); ++i) y[i] = static_cast<float>(p.golden[0].y[i]);
#else
  const auto y = cpu_spmv(*matrix, p.x[0]);
#endif
  const auto verdict = check_result(p.csr, p.x[0], p.golden[0], y, p.tolerance);
  return verdict.passed ? std::string() : std::string(name) + " product is off: " + verdict.describe();
}

std::uint64_t y_and_x_bytes(const PreparedCase& p) {
  return 4 * static_cast<std::uint64_t>(p.csr.rows) + 4 * static_cast<std::uint64_t>(p.csr.cols);
}

// Closes the descriptor with its last owner.
std::shared_ptr<const int> owned_descriptor(int fd) {
  return std::shared_ptr<const int>(new int(fd), [](const int* held) {
    ::close(*held);
    delete held;
  });
}

}  // namespace

std::vector<float> x_for_seed(std::size_t size, std::uint64_t seed) {
  std::vector<float> x(size);
  for (std::size_t i = 0; i < size; ++i) x[i] = std::bit_cast<float>(runner::x_bits(seed, i));
  return x;
}

// The images are made ahead, with the case (several at once); one made at
// its row may be asked for by the kernels' rows checked on threads of their
// own beside each other (grading.cpp). Made outside the lock: one made
// twice at once is kept once.
int matrix_image(PreparedCase& p, spmv_format format) {
  {
    const std::lock_guard lock(*p.images_mutex);
    if (const auto it = p.images.find(format); it != p.images.end()) return *it->second;
  }
  std::shared_ptr<const int> image;
  const bool known = visit_format(format, [&](auto tag) {
    const auto* form = p.form<typename decltype(tag)::type>();
    if (form == nullptr) throw std::invalid_argument(std::string("the case has no ") + format_name(format) + " form");
    image = owned_descriptor(runner::write_matrix_image(*form));
  });
  if (!known) throw std::invalid_argument("unknown format");
  const std::lock_guard lock(*p.images_mutex);
  return *p.images.try_emplace(format, std::move(image)).first->second;
}

int shape_image(PreparedCase& p) {
  const std::lock_guard lock(*p.images_mutex);
  if (!p.shape) {
    CsrMatrix empty;
    empty.rows = p.csr.rows;
    empty.cols = p.csr.cols;
    empty.row_ptr.assign(static_cast<std::size_t>(p.csr.rows) + 1, 0);
    p.shape = owned_descriptor(runner::write_matrix_image(empty));
  }
  return *p.shape;
}

std::uint64_t x_seed(std::uint64_t run_seed, const std::string& case_name, int which) {
  return splitmix64(splitmix64(run_seed ^ fnv1a(case_name)) + static_cast<std::uint64_t>(which));
}

std::uint64_t mix_secret(std::uint64_t seed, const std::string& secret) { return splitmix64(seed ^ fnv1a(secret)); }

PreparedCase prepare_case(const TestCase& test_case, const std::set<spmv_format>& formats,
                          const PrepareOptions& options) {
  PreparedCase p;
  p.test_case = test_case;
  try {
    p.csr = load_case_matrix(test_case, options.cache_dir);
    p.csr.validate();
  } catch (const std::exception& e) {
    throw PrepareError(e.what());
  }
  ConversionLimits limits;
  limits.max_bytes = static_cast<std::size_t>(options.format_limit_bytes);
  // Each format converted, and each x's golden result, on a thread of its
  // own (each writes its own member of the case): a large case's
  // preparation takes its longest part, not their sum.
  std::vector<std::future<std::string>> converting;
  for (const spmv_format format : formats) {
    converting.push_back(std::async(std::launch::async, [&p, format, &limits]() -> std::string {
      try {
        convert(p, format, limits);
        return {};
      } catch (const ConversionRefused& e) {
        return e.what();
      }
    }));
  }
  if (test_case.tolerance_c) p.tolerance.c = *test_case.tolerance_c;
  std::vector<std::future<void>> golden;
  for (int which = 0; which < kXVectors; ++which) {
    golden.push_back(std::async(std::launch::async, [&p, &options, which] {
      p.x_seeds[which] = x_seed(options.seed, p.test_case.name, which);
      p.x[which] = x_for_seed(static_cast<std::size_t>(p.csr.cols), p.x_seeds[which]);
      p.golden[which] = golden_spmv(p.csr, p.x[which]);
    }));
  }
  std::optional<PrepareError> failed;
  auto format = formats.begin();
  for (auto& conversion : converting) {
    try {
      if (std::string refused = conversion.get(); !refused.empty()) p.refused[*format] = std::move(refused);
    } catch (const std::exception& e) {
      if (!failed) failed.emplace("conversion to " + std::string(format_name(*format)) + " failed: " + e.what());
    }
    ++format;
  }
  for (auto& each : golden) each.get();
  if (failed) throw *failed;
  return p;
}

std::string host_side_check(const PreparedCase& p) {
  std::string problem;
  for_each_format([&](auto tag) {
    using Matrix = typename decltype(tag)::type;
    if (problem.empty()) problem = check_format(p, p.form<Matrix>(), FormatTraits<Matrix>::label);
  });
  return problem;
}

std::uint64_t compulsory_bytes(const PreparedCase& p, spmv_format format) {
  std::optional<std::uint64_t> matrix_bytes;
  visit_format(format, [&](auto tag) {
    using Matrix = typename decltype(tag)::type;
    matrix_bytes = FormatTraits<Matrix>::matrix_bytes(p.csr, p.form<Matrix>());
  });
  return matrix_bytes ? y_and_x_bytes(p) + *matrix_bytes : 0;
}

}  // namespace spmv::grade
