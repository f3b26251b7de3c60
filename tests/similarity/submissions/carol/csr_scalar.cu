/* CSR scalar, four entries in flight per thread: the loads of a row are
 * issued before the multiply-adds so more memory requests overlap. */
#include <cstdint>
#include "spmv/contract/csr.h"

static __global__ void scalar4(int nrows, const int *rowptr, const int *colind, const float *val,
                               const float *vec, float *res)
{
    for (long long i = threadIdx.x + (long long)blockIdx.x * blockDim.x; i < nrows;
         i += (long long)blockDim.x * gridDim.x) {
        int jj = rowptr[i];
        const int jend = rowptr[i + 1];
        float t0 = 0.f, t1 = 0.f, t2 = 0.f, t3 = 0.f;
        for (; jj + 3 < jend; jj += 4) {
            int c0 = colind[jj], c1 = colind[jj + 1], c2 = colind[jj + 2], c3 = colind[jj + 3];
            float v0 = val[jj], v1 = val[jj + 1], v2 = val[jj + 2], v3 = val[jj + 3];
            t0 += v0 * vec[c0];
            t1 += v1 * vec[c1];
            t2 += v2 * vec[c2];
            t3 += v3 * vec[c3];
        }
        for (; jj < jend; ++jj) t0 += val[jj] * vec[colind[jj]];
        res[i] = (t0 + t1) + (t2 + t3);
    }
}

spmv_status spmv_csr_scalar(const spmv_csr_view *A, const float *x, float *y, void *scratch, cudaStream_t stream)
{
    (void)scratch;
    if (A->rows < 1) return SPMV_SUCCESS;
    long long want = ((long long)A->rows + 255) / 256;
    scalar4<<<(unsigned)(want > 8192 ? 8192 : want), 256, 0, stream>>>(A->rows, A->row_ptr, A->col_idx, A->values,
                                                                       x, y);
    return cudaGetLastError();
}
