// Reference HYB kernel: the ELL kernel writes every row of y from the ELL
// part (rows whose entries all went to COO get 0), then the COO kernel adds
// the long rows' remaining entries atomically. Both run on the caller's
// stream, so the COO pass starts after the ELL pass has written y.
#include "common.cuh"
#include "spmv/contract/hyb.h"

spmv_status spmv_hyb(const spmv_hyb_view* A, const float* x, float* y, void* /*scratch*/, cudaStream_t stream) {
  const spmv_status ell_status = spmv_ell(&A->ell, x, y, nullptr, stream);
  if (ell_status != SPMV_SUCCESS) return ell_status;
  return spmv::reference::enqueue_coo_accumulate(A->coo, x, y, stream);
}
