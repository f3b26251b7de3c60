// A case made ready for grading, once per run: the matrix read (or
// generated) and converted to every format the requested kernels take, the
// two x vectors of the correctness runs and their golden results, and each
// format's matrix image for the runners. All of it is done before any
// submission code runs.
#pragma once

#include <array>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "spmv/contract/plugin.h"
#include "spmv/core/cases.hpp"
#include "spmv/core/format_table.hpp"
#include "spmv/core/formats.hpp"
#include "spmv/core/golden.hpp"
#include "spmv/core/tolerance.hpp"

namespace spmv::grade {

// The case cannot be read or converted (not the submission's fault).
class PrepareError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct PrepareOptions {
  std::filesystem::path cache_dir;
  std::uint64_t format_limit_bytes = std::uint64_t{4} << 30;
  std::uint64_t seed = 0;  // the run's seed (secret part already mixed in)
};

inline constexpr int kXVectors = 2;

struct PreparedCase {
  TestCase test_case;
  CsrMatrix csr;
  // Each requested format's form, one slot per format of the table
  // (spmv/core/format_table.hpp); CSR's stays empty: csr above is it.
  EachFormatTuple<std::optional> forms;
  std::map<spmv_format, std::string> refused;  // formats that cannot hold it, and why
  std::array<std::uint64_t, kXVectors> x_seeds{};
  std::array<std::vector<float>, kXVectors> x;
  std::array<GoldenResult, kXVectors> golden;
  ToleranceOptions tolerance;
  // Each format's sealed matrix image (spmv/runner/matrix_image.hpp), made
  // on first use; the descriptors are closed with the case.
  std::map<spmv_format, std::shared_ptr<const int>> images;
  // A CSR image of the case's shape with no entry (shape_image()).
  std::shared_ptr<const int> shape;
  // Guards `images` and `shape`: the kernels' rows are checked on threads of
  // their own beside each other, and the images made on several at once.
  std::shared_ptr<std::mutex> images_mutex = std::make_shared<std::mutex>();
  // cuSPARSE's time on this case, measured by the first child that can.
  std::optional<double> cusparse_ms;

  // The case's form in format Matrix; null when it was not built.
  template <typename Matrix>
  [[nodiscard]] const Matrix* form() const {
    if constexpr (std::is_same_v<Matrix, CsrMatrix>) {
      return &csr;
    } else {
      const auto& slot = std::get<std::optional<Matrix>>(forms);
      return slot ? &*slot : nullptr;
    }
  }
};

// Throws PrepareError naming the case and what went wrong.
PreparedCase prepare_case(const TestCase& test_case, const std::set<spmv_format>& formats,
                          const PrepareOptions& options);

// x of `size` values for `seed`, bit for bit as a runner makes it
// (spmv/runner/x_values.hpp).
std::vector<float> x_for_seed(std::size_t size, std::uint64_t seed);

// The seed of x vector `which` of a case: depends only on the run's seed
// and the case's name, so one row can be reproduced alone.
std::uint64_t x_seed(std::uint64_t run_seed, const std::string& case_name, int which);
// The run's seed from --seed and --secret-seed.
std::uint64_t mix_secret(std::uint64_t seed, const std::string& secret);

// The descriptor of the case's matrix image in `format` (made on first use;
// owned by the case). Throws std::invalid_argument if the case has no such form.
int matrix_image(PreparedCase& prepared, spmv_format format);
// The descriptor of an image of a CSR matrix of the case's rows and columns
// and no entry: what a runner's own overhead is measured with (x, y and
// their guards the size of the case's, at the cost of uploading nothing).
int shape_image(PreparedCase& prepared);

// Checks on the host what a GPU run would rely on: every converted format
// validates, and the sequential product of each equals the golden result
// within tolerance (in the student kit, SPMV_KIT, that of CSR only). Empty
// when all is well, else what failed.
std::string host_side_check(const PreparedCase& prepared);

// Bytes a kernel of `format` must move at least (see --help): the format's
// arrays read once, x read once, y written once.
std::uint64_t compulsory_bytes(const PreparedCase& prepared, spmv_format format);

}  // namespace spmv::grade
