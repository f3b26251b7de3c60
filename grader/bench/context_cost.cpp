// spmv-context-cost: makes a CUDA context (cudaFree(0)), says "ready" on
// stdout, and ends when its stdin closes. tools/context-cost times it from
// outside, under the environment variants a runner could be given: what a
// runner's start and end cost the GPU (docs/grading.md, "A runner's CUDA
// context, measured").
#include <cuda_runtime.h>

#include <cstdio>

int main() {
  const cudaError_t made = cudaFree(nullptr);
  if (made != cudaSuccess) {
    std::fprintf(stderr, "spmv-context-cost: no CUDA context: %s\n", cudaGetErrorString(made));
    return 1;
  }
  std::puts("ready");
  std::fflush(stdout);
  while (std::getchar() != EOF) {
  }
  return 0;
}
