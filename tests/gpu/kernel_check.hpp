// Launching a plugin's kernel the way the grader does, and the checks every
// kernel conformance test applies to the result.
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <vector>

#include "spmv/contract/plugin.h"
#include "spmv/core/formats.hpp"
#include "spmv/memory/buffer.hpp"
#include "uploaded_matrix.hpp"

namespace spmv::test {

// A non-blocking stream, so a kernel that ignores its stream argument and
// runs on the legacy default stream is not silently ordered with the test.
class DeviceStream {
 public:
  DeviceStream();
  DeviceStream(const DeviceStream&) = delete;
  DeviceStream& operator=(const DeviceStream&) = delete;
  ~DeviceStream();
  [[nodiscard]] cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

// Where kernels run: device memory and a stream (course plugins), or host
// memory and no stream (host-path plugins, which finish before returning).
struct Placement {
  MemorySpace space = MemorySpace::kDevice;
  cudaStream_t stream = nullptr;
};

// Kernels whose result may differ bit for bit between two runs on the same
// input: the atomics of COO and HYB add in whatever order threads arrive.
bool may_vary_between_runs(const spmv_kernel_entry& kernel);

// Runs `kernel` twice on each layout with x and expects, for every run: the
// launch returns SPMV_SUCCESS, every row of y passes spmv::check_result
// against golden, nothing is written before or after y, A and x are
// unchanged; and both runs agree bit for bit unless may_vary_between_runs.
// `a` is the matrix every layout holds; the layouts must live in
// `where.space`. Returns y of each layout's first run (empty for a layout
// whose launch failed).
std::vector<std::vector<float>> expect_matches_golden(const spmv_kernel_entry& kernel,
                                                      const std::vector<UploadedMatrix>& layouts, const CsrMatrix& a,
                                                      const std::vector<float>& x, const Placement& where);

}  // namespace spmv::test
