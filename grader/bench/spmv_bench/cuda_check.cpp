#include "spmv_bench/cuda_check.hpp"

namespace spmv::bench {

CusparseError::CusparseError(const std::string& call, cusparseStatus_t status)
    : std::runtime_error(call + " failed: " + cusparseGetErrorName(status) + " (" + cusparseGetErrorString(status) +
                         ")"),
      status_(status) {}

void check_cuda_at(cudaError_t status, const char* call, const char* where) {
  if (status == cudaSuccess) return;
  const std::string what = std::string(where) + ": " + call;
  throw CudaError(what.c_str(), static_cast<int>(status));
}

void check_cusparse_at(cusparseStatus_t status, const char* call, const char* where) {
  if (status == CUSPARSE_STATUS_SUCCESS) return;
  throw CusparseError(std::string(where) + ": " + call, status);
}

}  // namespace spmv::bench
