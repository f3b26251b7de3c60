// One matrix's benchmark inputs: built on the host (generated or read once,
// converted once per format of the format table, all formats in parallel),
// then uploaded to the device format by format as kernels ask for them, and
// freed as a whole before the next matrix.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "spmv/core/format_table.hpp"
#include "spmv/core/formats.hpp"
#include "spmv/core/golden.hpp"
#include "spmv/core/matrix_stats.hpp"
#include "spmv/memory/buffer.hpp"
#include "spmv/memory/format_views.hpp"
#include "spmv_bench/sliced_ell.hpp"
#include "spmv_bench/suite.hpp"

namespace spmv::bench {

// The kernel cannot run on this matrix (a format refused it, or the bench
// does not know the kernel's format): reported as "n/a", not as a failure.
class NotApplicable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A form built from the CSR matrix when a selected kernel needs it: a format
// of the table, numbered as its spmv_format (host_format(format)), or
// cuSPARSE's sliced ELL.
enum class HostFormat : int { kSlicedEll = -1 };
constexpr HostFormat host_format(spmv_format format) { return static_cast<HostFormat>(format); }

// Slice height of the sliced ELL given to cuSPARSE: one warp per slice.
inline constexpr index_t kSlicedEllSliceSize = 32;

template <typename Matrix>
struct Converted {
  bool requested = false;
  std::optional<Matrix> matrix;  // empty after a refusal, or once uploaded
  std::string refusal;           // why the conversion was refused
};

struct HostWorkload {
  MatrixSource source;
  CsrMatrix csr;
  std::vector<float> x;
  GoldenResult golden;
  MatrixStats stats;
  // Every format of the table, converted with the grader's parameters
  // (FormatTraits<M>::from_csr); CSR's slot stays unrequested (`csr` is it).
  EachFormatTuple<Converted> formats;
  Converted<SlicedEllMatrix> sliced_ell;
  double prepare_seconds = 0;

  template <typename Matrix>
  Converted<Matrix>& converted() {
    return std::get<Converted<Matrix>>(formats);
  }
};

// Loads the matrix, draws x from `seed`, computes the golden result and the
// requested formats, using one thread per task. A refused conversion is
// recorded; any other error (unreadable file, bad spec) is thrown.
HostWorkload prepare_host_workload(const MatrixSource& source, const std::set<HostFormat>& formats, std::uint64_t seed);

class DeviceWorkload {
 public:
  // Uploads CSR and x and allocates y. Keeps a reference to `host`, whose
  // other formats it moves to the device (and frees on the host) on first use.
  explicit DeviceWorkload(HostWorkload& host);

  [[nodiscard]] const HostWorkload& host() const { return host_; }
  [[nodiscard]] const spmv_csr_view& csr() const { return csr_.view; }
  // The contract view of format `Matrix` (a format of the table), uploaded
  // on first use. These throw NotApplicable when the conversion was refused.
  template <typename Matrix>
  const typename FormatViews<Matrix>::View& view_of();
  // The same for the format numbered `format`, as a plugin's kernel takes
  // it; NotApplicable too when the table has no such format.
  const void* view(spmv_format format);
  const SlicedEllBuffers& sliced_ell();

  [[nodiscard]] const float* x() const { return x_.data(); }
  [[nodiscard]] float* y() const { return y_.data(); }
  // Fills every word of y with `word` (kPoisonBits: the NaN check_result
  // recognizes as "never written") and waits until the device holds it.
  void fill_y(std::uint32_t word);
  [[nodiscard]] std::vector<float> download_y() const { return y_.download(); }

 private:
  HostWorkload& host_;
  FormatBuffers<CsrMatrix> csr_;
  Buffer<float> x_, y_;
  template <typename Matrix>
  using DeviceForm = std::optional<typename FormatViews<Matrix>::Buffers>;
  EachFormatTuple<DeviceForm> device_forms_;  // CSR's slot unused: csr_ is it
  std::optional<SlicedEllBuffers> sliced_ell_;
};

namespace detail {
// Moves a host form to the device the first time a kernel needs it.
template <typename Matrix, typename Buffers>
const Buffers& upload_once(std::optional<Buffers>& device, Converted<Matrix>& host, const char* format) {
  if (device) return *device;
  if (!host.requested) {
    throw std::logic_error(std::string("spmv-bench: the ") + format +
                           " form was used but never requested from prepare_host_workload");
  }
  if (!host.matrix) throw NotApplicable("refused: " + host.refusal);
  device = upload(MemorySpace::kDevice, *host.matrix);
  host.matrix.reset();  // the device copy is all the kernels need
  return *device;
}
}  // namespace detail

template <typename Matrix>
const typename FormatViews<Matrix>::View& DeviceWorkload::view_of() {
  if constexpr (std::is_same_v<Matrix, CsrMatrix>) {
    return csr_.view;
  } else {
    return detail::upload_once(std::get<DeviceForm<Matrix>>(device_forms_), host_.converted<Matrix>(),
                               FormatTraits<Matrix>::label)
        .view;
  }
}

}  // namespace spmv::bench
