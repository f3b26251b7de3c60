// Filling a runner's x and y buffers between launches: x from a seed (the
// values of x_values.hpp) between NaN guards, y with the poison between
// guard zones. On the device these are kernels on the runner's stream, so
// no host copy of x or y is made; on the host, loops.
#pragma once

#include <cstddef>
#include <cstdint>

#include "spmv/runner/executor.hpp"

namespace spmv::runner {

// `words` = guard + n + guard 32-bit words at `area`; x values go after the guard.
void fill_x(Executor& executor, void* area, std::size_t n, std::uint64_t seed);
// guard + rows + guard words: guard pattern, poison, guard pattern.
void fill_y(Executor& executor, void* area, std::size_t rows);

// The timing gate (device_executor.cpp): a kernel that holds `stream` until
// gate[0] (host memory the device can read) is set, or `limit_ns` has
// passed, which it notes in gate[1]. Work enqueued behind it while it holds
// then runs back to back, whatever the host's pace. Its kernel's name holds
// kGateKernelName (the launch records tell it by that).
inline constexpr const char* kGateKernelName = "hold_until_released_kernel";
void hold_stream(cudaStream_t stream, unsigned int* gate, unsigned long long limit_ns);

}  // namespace spmv::runner
