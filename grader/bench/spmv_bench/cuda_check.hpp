// Status checks for CUDA runtime and cuSPARSE calls that name the failed
// call and where it was made, so a failure on the GPU machine explains itself.
#pragma once

#include <cusparse.h>

#include <stdexcept>
#include <string>

#include "spmv/memory/buffer.hpp"

namespace spmv::bench {

class CusparseError : public std::runtime_error {
 public:
  CusparseError(const std::string& call, cusparseStatus_t status);
  [[nodiscard]] cusparseStatus_t status() const { return status_; }

 private:
  cusparseStatus_t status_;
};

// Throws CudaError / CusparseError naming `call` (the source text) and `where`.
void check_cuda_at(cudaError_t status, const char* call, const char* where);
void check_cusparse_at(cusparseStatus_t status, const char* call, const char* where);

}  // namespace spmv::bench

#define SPMV_BENCH_STRINGIFY_DETAIL(x) #x
#define SPMV_BENCH_STRINGIFY(x) SPMV_BENCH_STRINGIFY_DETAIL(x)
#define SPMV_BENCH_WHERE __FILE__ ":" SPMV_BENCH_STRINGIFY(__LINE__)

#define SPMV_CUDA_CHECK(call) ::spmv::bench::check_cuda_at((call), #call, SPMV_BENCH_WHERE)
#define SPMV_CUSPARSE_CHECK(call) ::spmv::bench::check_cusparse_at((call), #call, SPMV_BENCH_WHERE)
