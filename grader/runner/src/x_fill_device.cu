#include <cuda_runtime.h>

#include "spmv/core/tolerance.hpp"
#include "spmv/runner/protocol.hpp"
#include "spmv/runner/x_values.hpp"
#include "x_fill.hpp"

namespace spmv::runner {
namespace {

__global__ void fill_x_kernel(std::uint32_t* area, std::size_t n, std::uint64_t seed) {
  const std::size_t total = n + 2 * kXGuardWords;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const bool guard = i < kXGuardWords || i >= kXGuardWords + n;
    area[i] = guard ? kXGuardBits : x_bits(seed, i - kXGuardWords);
  }
}

__global__ void fill_y_kernel(std::uint32_t* area, std::size_t rows) {
  const std::size_t total = rows + 2 * kYGuardWords;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const bool guard = i < kYGuardWords || i >= kYGuardWords + rows;
    area[i] = guard ? kGuardBits : kPoisonBits;
  }
}

__global__ void hold_until_released_kernel(const volatile unsigned int* released, unsigned int* expired,
                                           unsigned long long limit_ns) {
  unsigned long long start = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  while (*released == 0) {
    unsigned long long now = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > limit_ns) {
      *expired = 1;
      return;
    }
  }
}

unsigned blocks_for(std::size_t words) {
  const std::size_t blocks = (words + 255) / 256;
  return static_cast<unsigned>(blocks < 4096 ? blocks : 4096);
}

}  // namespace

void fill_x(Executor& executor, void* area, std::size_t n, std::uint64_t seed) {
  if (executor.space() == MemorySpace::kHost) {
    auto* words = static_cast<std::uint32_t*>(area);
    for (std::size_t i = 0; i < kXGuardWords; ++i) words[i] = words[kXGuardWords + n + i] = kXGuardBits;
    for (std::size_t i = 0; i < n; ++i) words[kXGuardWords + i] = x_bits(seed, i);
    return;
  }
  fill_x_kernel<<<blocks_for(n + 2 * kXGuardWords), 256, 0, executor.stream()>>>(static_cast<std::uint32_t*>(area), n,
                                                                                 seed);
  check_cuda(cudaGetLastError(), "filling x");
}

void fill_y(Executor& executor, void* area, std::size_t rows) {
  if (executor.space() == MemorySpace::kHost) {
    auto* words = static_cast<std::uint32_t*>(area);
    for (std::size_t i = 0; i < kYGuardWords; ++i) words[i] = words[kYGuardWords + rows + i] = kGuardBits;
    for (std::size_t i = 0; i < rows; ++i) words[kYGuardWords + i] = kPoisonBits;
    return;
  }
  fill_y_kernel<<<blocks_for(rows + 2 * kYGuardWords), 256, 0, executor.stream()>>>(static_cast<std::uint32_t*>(area),
                                                                                    rows);
  check_cuda(cudaGetLastError(), "filling y");
}

void hold_stream(cudaStream_t stream, unsigned int* gate, unsigned long long limit_ns) {
  hold_until_released_kernel<<<1, 1, 0, stream>>>(gate, gate + 1, limit_ns);
  check_cuda(cudaGetLastError(), "holding the stream");
}

}  // namespace spmv::runner
