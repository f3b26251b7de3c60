#include "cusparse_timer.hpp"

#include <cusparse.h>

#include <stdexcept>

#include "spmv/memory/format_views.hpp"

namespace spmv::runner {
namespace {

class CusparseFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

void check(cusparseStatus_t status, const char* what) {
  if (status != CUSPARSE_STATUS_SUCCESS) {
    throw CusparseFailure(std::string(what) + ": " + cusparseGetErrorString(status));
  }
}

// The handle and descriptors, destroyed in reverse order of creation.
struct CusparseSession {
  cusparseHandle_t handle = nullptr;
  cusparseSpMatDescr_t matrix = nullptr;
  cusparseDnVecDescr_t x = nullptr;
  cusparseDnVecDescr_t y = nullptr;

  CusparseSession() = default;
  CusparseSession(const CusparseSession&) = delete;
  CusparseSession& operator=(const CusparseSession&) = delete;
  ~CusparseSession() {
    if (y != nullptr) cusparseDestroyDnVec(y);
    if (x != nullptr) cusparseDestroyDnVec(x);
    if (matrix != nullptr) cusparseDestroySpMat(matrix);
    if (handle != nullptr) cusparseDestroy(handle);
  }
};

}  // namespace

CusparseTiming time_cusparse_csr(const spmv_csr_view& a, std::span<const float> x, Executor& executor,
                                 const TimingOptions& options) {
  CusparseTiming result;
  if (a.rows == 0 || a.cols == 0 || a.nnz == 0) {
    result.note = "no entries: nothing for cuSPARSE to multiply";
    return result;
  }
  try {
    const Buffer<float> x_buffer(MemorySpace::kDevice, x);
    const Buffer<float> y_buffer(MemorySpace::kDevice, static_cast<std::size_t>(a.rows));
    CusparseSession s;
    check(cusparseCreate(&s.handle), "cusparseCreate");
    check(cusparseSetStream(s.handle, executor.stream()), "cusparseSetStream");
    // cuSPARSE's descriptor takes non-const pointers; SpMV only reads them.
    check(cusparseCreateCsr(&s.matrix, a.rows, a.cols, a.nnz, const_cast<std::int32_t*>(a.row_ptr),
                            const_cast<std::int32_t*>(a.col_idx), const_cast<float*>(a.values), CUSPARSE_INDEX_32I,
                            CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F),
          "cusparseCreateCsr");
    check(cusparseCreateDnVec(&s.x, a.cols, x_buffer.data(), CUDA_R_32F), "cusparseCreateDnVec");
    check(cusparseCreateDnVec(&s.y, a.rows, y_buffer.data(), CUDA_R_32F), "cusparseCreateDnVec");
    const float alpha = 1.0f;
    const float beta = 0.0f;
    std::size_t workspace_bytes = 0;
    check(cusparseSpMV_bufferSize(s.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, s.matrix, s.x, &beta, s.y,
                                  CUDA_R_32F, CUSPARSE_SPMV_CSR_ALG1, &workspace_bytes),
          "cusparseSpMV_bufferSize");
    const RawBuffer workspace(MemorySpace::kDevice, workspace_bytes);
    const auto launch = [&]() -> spmv_status {
      const cusparseStatus_t status = cusparseSpMV(s.handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, s.matrix, s.x,
                                                   &beta, s.y, CUDA_R_32F, CUSPARSE_SPMV_CSR_ALG1, workspace.data());
      return status == CUSPARSE_STATUS_SUCCESS ? SPMV_SUCCESS : -static_cast<int>(status) - 100;
    };
    const TimedLaunch timed = [&] {
      spmv_status status = SPMV_SUCCESS;
      int error = 0;
      const double ms = executor.time(launch, status, error);
      if (status != SPMV_SUCCESS) throw CusparseFailure("cusparseSpMV failed");
      check_cuda(error, "cusparseSpMV");
      return ms;
    };
    result.timing = time_interleaved({timed}, options).front();
    result.timed = true;
  } catch (const CusparseFailure& e) {
    result.note = e.what();
  }
  return result;
}

}  // namespace spmv::runner
