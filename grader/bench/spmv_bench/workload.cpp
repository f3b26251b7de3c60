#include "spmv_bench/workload.hpp"

#include <algorithm>
#include <chrono>
#include <future>
#include <span>
#include <string>
#include <type_traits>

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

}  // namespace

HostWorkload prepare_host_workload(const MatrixSource& source, const std::set<HostFormat>& formats,
                                   std::uint64_t seed) {
  const auto start = std::chrono::steady_clock::now();
  HostWorkload w;
  w.source = source;
  w.csr = source.load();
  w.stats = compute_stats(w.csr);
  const CsrMatrix& csr = w.csr;
  const auto wants = [&](HostFormat format) { return formats.contains(format); };

  std::vector<std::future<void>> tasks;
  tasks.push_back(std::async(std::launch::async, [&w, seed] {
    w.x = random_vector(static_cast<std::size_t>(w.csr.cols), seed);
    w.golden = golden_spmv(w.csr, w.x);
  }));
  for_each_format([&](auto tag) {
    using Matrix = typename decltype(tag)::type;
    if constexpr (!std::is_same_v<Matrix, CsrMatrix>) {
      tasks.push_back(convert_async(w.converted<Matrix>(), wants(host_format(format_of_v<Matrix>)),
                                    [&csr] { return FormatTraits<Matrix>::from_csr(csr, ConversionLimits{}); }));
    }
  });
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

const void* DeviceWorkload::view(spmv_format format) {
  const void* view = nullptr;
  const bool known = visit_format(format, [&](auto tag) { view = &view_of<typename decltype(tag)::type>(); });
  if (!known) {
    throw NotApplicable("spmv-bench cannot build format number " + std::to_string(static_cast<int>(format)) +
                        " for a plugin kernel");
  }
  return view;
}

const SlicedEllBuffers& DeviceWorkload::sliced_ell() {
  return detail::upload_once(sliced_ell_, host_.sliced_ell, "sliced ELL");
}

void DeviceWorkload::fill_y(std::uint32_t word) {
  y_.raw().fill_words(word);
  // The copy from pageable memory may still be in flight when it returns.
  SPMV_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace spmv::bench
