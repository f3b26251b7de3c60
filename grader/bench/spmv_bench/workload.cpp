#include "spmv_bench/workload.hpp"

#include <algorithm>
#include <chrono>
#include <future>
#include <span>

#include "spmv/core/convert.hpp"
#include "spmv_bench/cuda_check.hpp"

namespace spmv::bench {
namespace {

// Runs `convert` on its own thread unless the format is not wanted. A
// refusal is recorded in `slot`; other exceptions reach the future.
template <typename Matrix, typename Convert>
std::future<void> convert_async(Converted<Matrix>& slot, bool wanted, Convert convert) {
  slot.requested = wanted;
  if (!wanted) return {};
  return std::async(std::launch::async, [&slot, convert] {
    try {
      slot.matrix = convert();
    } catch (const ConversionRefused& refused) {
      slot.refusal = refused.what();
    }
  });
}

MatrixStats stats_of(const CsrMatrix& a) {
  MatrixStats stats{a.rows, a.cols, a.nnz(), 0, 0};
  for (index_t row = 0; row < a.rows; ++row) {
    stats.max_row = std::max(stats.max_row, a.row_length(row));
    if (a.row_length(row) == 0) ++stats.empty_rows;
  }
  return stats;
}

// Moves a host format to the device the first time a kernel needs it.
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

}  // namespace

HostWorkload prepare_host_workload(const MatrixSource& source, const std::set<HostFormat>& formats,
                                   std::uint64_t seed) {
  const auto start = std::chrono::steady_clock::now();
  HostWorkload w;
  w.source = source;
  w.csr = source.load();
  w.stats = stats_of(w.csr);
  const CsrMatrix& csr = w.csr;
  const auto wants = [&](HostFormat format) { return formats.contains(format); };

  std::vector<std::future<void>> tasks;
  tasks.push_back(std::async(std::launch::async, [&w, seed] {
    w.x = random_vector(static_cast<std::size_t>(w.csr.cols), seed);
    w.golden = golden_spmv(w.csr, w.x);
  }));
  tasks.push_back(convert_async(w.coo, wants(HostFormat::kCoo), [&csr] { return to_coo(csr); }));
  tasks.push_back(convert_async(w.ell, wants(HostFormat::kEll), [&csr] { return to_ell(csr); }));
  tasks.push_back(convert_async(w.hyb, wants(HostFormat::kHyb), [&csr] { return to_hyb(csr); }));
  tasks.push_back(convert_async(w.jds, wants(HostFormat::kJds), [&csr] { return to_jds(csr); }));
  tasks.push_back(convert_async(w.sell, wants(HostFormat::kSell), [&csr] { return to_sell(csr, sell_params_for(csr)); }));
  tasks.push_back(convert_async(w.sliced_ell, wants(HostFormat::kSlicedEll),
                                [&csr] { return to_sliced_ell(csr, kSlicedEllSliceSize); }));
  // get() rethrows a task's exception; the futures of std::async join their
  // threads when destroyed, so no task outlives `w` on the way out.
  for (std::future<void>& task : tasks) {
    if (task.valid()) task.get();
  }
  w.prepare_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return w;
}

DeviceWorkload::DeviceWorkload(HostWorkload& host)
    : host_(host),
      csr_(upload(MemorySpace::kDevice, host.csr)),
      x_(MemorySpace::kDevice, std::span<const float>(host.x)),
      y_(MemorySpace::kDevice, static_cast<std::size_t>(host.csr.rows)) {}

const spmv_coo_view& DeviceWorkload::coo() { return upload_once(coo_, host_.coo, "COO").view; }
const spmv_ell_view& DeviceWorkload::ell() { return upload_once(ell_, host_.ell, "ELL").view; }
const spmv_hyb_view& DeviceWorkload::hyb() { return upload_once(hyb_, host_.hyb, "HYB").view; }
const spmv_jds_view& DeviceWorkload::jds() { return upload_once(jds_, host_.jds, "JDS").view; }
const spmv_sell_view& DeviceWorkload::sell() { return upload_once(sell_, host_.sell, "SELL").view; }
const SlicedEllBuffers& DeviceWorkload::sliced_ell() {
  return upload_once(sliced_ell_, host_.sliced_ell, "sliced ELL");
}

void DeviceWorkload::fill_y(std::uint32_t word) {
  y_.raw().fill_words(word);
  // The copy from pageable memory may still be in flight when it returns.
  SPMV_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace spmv::bench
