#include "spmv/contract/ell.h"

__global__ void k_ell(int n, const int *len, const int *cj, const float *a, const float *xv, float *yv)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float s = 0.f;
    size_t pos = (size_t)i;
    int m = len[i];
    while (m-- > 0) {
        s = fmaf(a[pos], xv[cj[pos]], s);
        pos += (size_t)n;
    }
    yv[i] = s;
}

spmv_status spmv_ell(const spmv_ell_view *A, const float *x, float *y, void *scratch, cudaStream_t stream)
{
    (void)scratch;
    if (A->rows == 0)
        return SPMV_SUCCESS;
    int bs = 512;
    long long nb = ((long long)A->rows + bs - 1) / bs;
    k_ell<<<(unsigned)nb, bs, 0, stream>>>(A->rows, A->row_length, A->col_idx, A->values, x, y);
    return cudaGetLastError();
}
