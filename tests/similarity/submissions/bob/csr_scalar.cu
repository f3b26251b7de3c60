#include "spmv/contract/csr.h"

// thread per row; no grid stride, one launch covers all rows
__global__ void k_csr_scalar(int n, const int *rp, const int *cj, const float *a, const float *xv, float *yv)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    int lo = rp[i], hi = rp[i + 1];
    float s = 0.f;
    while (lo < hi) {
        s = fmaf(a[lo], xv[cj[lo]], s);
        lo++;
    }
    yv[i] = s;
}

spmv_status spmv_csr_scalar(const spmv_csr_view *A, const float *x, float *y, void *scratch, cudaStream_t stream)
{
    (void)scratch;
    if (A->rows == 0)
        return SPMV_SUCCESS;
    int bs = 512;
    long long nb = ((long long)A->rows + bs - 1) / bs;
    k_csr_scalar<<<(unsigned)nb, bs, 0, stream>>>(A->rows, A->row_ptr, A->col_idx, A->values, x, y);
    return cudaGetLastError();
}
