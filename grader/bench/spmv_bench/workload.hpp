// One matrix's benchmark inputs: built on the host (generated or read once,
// converted once per format, all formats in parallel), then uploaded to the
// device format by format as kernels ask for them, and freed as a whole
// before the next matrix.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "spmv/core/formats.hpp"
#include "spmv/core/golden.hpp"
#include "spmv/memory/buffer.hpp"
#include "spmv_bench/sliced_ell.hpp"
#include "spmv_bench/suite.hpp"

namespace spmv::bench {

// The kernel cannot run on this matrix (a format refused it, or the bench
// does not know the kernel's format): reported as "n/a", not as a failure.
class NotApplicable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Formats built from the CSR matrix when a selected kernel needs them.
enum class HostFormat { kCoo, kEll, kHyb, kJds, kSell, kSlicedEll };

// Slice height of the sliced ELL given to cuSPARSE: one warp per slice.
inline constexpr index_t kSlicedEllSliceSize = 32;

template <typename Matrix>
struct Converted {
  bool requested = false;
  std::optional<Matrix> matrix;  // empty after a refusal, or once uploaded
  std::string refusal;           // why the conversion was refused
};

struct MatrixStats {
  index_t rows = 0;
  index_t cols = 0;
  std::int64_t nnz = 0;
  index_t max_row = 0;
  index_t empty_rows = 0;
};

struct HostWorkload {
  MatrixSource source;
  CsrMatrix csr;
  std::vector<float> x;
  GoldenResult golden;
  MatrixStats stats;
  Converted<CooMatrix> coo;
  Converted<EllMatrix> ell;
  Converted<HybMatrix> hyb;
  Converted<JdsMatrix> jds;
  Converted<SellMatrix> sell;  // default SellParams, as spmv-grade builds it
  Converted<SlicedEllMatrix> sliced_ell;
  double prepare_seconds = 0;
};

// Loads the matrix, draws x from `seed`, computes the golden result and the
// requested formats, using one thread per task. A refused conversion is
// recorded; any other error (unreadable file, bad spec) is thrown.
HostWorkload prepare_host_workload(const MatrixSource& source, const std::set<HostFormat>& formats,
                                   std::uint64_t seed);

class DeviceWorkload {
 public:
  // Uploads CSR and x and allocates y. Keeps a reference to `host`, whose
  // other formats it moves to the device (and frees on the host) on first use.
  explicit DeviceWorkload(HostWorkload& host);

  [[nodiscard]] const HostWorkload& host() const { return host_; }
  [[nodiscard]] const spmv_csr_view& csr() const { return csr_.view; }
  // These throw NotApplicable when the conversion was refused.
  const spmv_coo_view& coo();
  const spmv_ell_view& ell();
  const spmv_hyb_view& hyb();
  const spmv_jds_view& jds();
  const spmv_sell_view& sell();
  const SlicedEllBuffers& sliced_ell();

  [[nodiscard]] const float* x() const { return x_.data(); }
  [[nodiscard]] float* y() const { return y_.data(); }
  // Fills every word of y with `word` (kPoisonBits: the NaN check_result
  // recognizes as "never written") and waits until the device holds it.
  void fill_y(std::uint32_t word);
  [[nodiscard]] std::vector<float> download_y() const { return y_.download(); }

 private:
  HostWorkload& host_;
  CsrBuffers csr_;
  Buffer<float> x_, y_;
  std::optional<CooBuffers> coo_;
  std::optional<EllBuffers> ell_;
  std::optional<HybBuffers> hyb_;
  std::optional<JdsBuffers> jds_;
  std::optional<SellBuffers> sell_;
  std::optional<SlicedEllBuffers> sliced_ell_;
};

}  // namespace spmv::bench
