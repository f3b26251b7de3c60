#include "spmv/contract/hyb.h"

// both parts in one kernel launch each, own code (not the ell file's)
__global__ void k_hyb_ell(int n, int width, const int *len, const int *cj, const float *a, const float *xv,
                          float *yv)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float s = 0.f;
    int m = len[i] < width ? len[i] : width;
    for (int k = 0; k < m; k++) {
        size_t p = (size_t)k * n + i;
        s = fmaf(a[p], xv[cj[p]], s);
    }
    yv[i] = s;
}

__global__ void k_hyb_tail(int nz, const int *ri, const int *ci, const float *v, const float *xv, float *yv)
{
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t < nz)
        atomicAdd(&yv[ri[t]], v[t] * xv[ci[t]]);
}

spmv_status spmv_hyb(const spmv_hyb_view *A, const float *x, float *y, void *scratch, cudaStream_t stream)
{
    (void)scratch;
    int n = A->ell.rows;
    if (n == 0)
        return SPMV_SUCCESS;
    int bs = 512;
    k_hyb_ell<<<(unsigned)(((long long)n + bs - 1) / bs), bs, 0, stream>>>(n, A->ell.width, A->ell.row_length,
                                                                             A->ell.col_idx, A->ell.values, x, y);
    if (A->coo.nnz > 0)
        k_hyb_tail<<<(unsigned)(((long long)A->coo.nnz + bs - 1) / bs), bs, 0, stream>>>(
            A->coo.nnz, A->coo.row_idx, A->coo.col_idx, A->coo.values, x, y);
    return cudaGetLastError();
}
