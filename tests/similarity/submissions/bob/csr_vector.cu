#include "spmv/contract/csr.h"

// A full warp per row, always: simpler than choosing a group size, and the
// grid is sized so that every row gets its warp (no loop over rows).
__global__ void k_csr_warp(int n, const int *rp, const int *cj, const float *a, const float *xv, float *yv)
{
    long long gt = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long w = gt >> 5;
    int l = threadIdx.x & 31;
    if (w >= n)
        return;                       // the whole warp leaves together
    int lo = rp[w], hi = rp[w + 1];
    float s = 0.f;
    for (int q = lo + l; q < hi; q += 32)
        s = fmaf(a[q], xv[cj[q]], s);
    s += __shfl_xor_sync(0xffffffff, s, 16);
    s += __shfl_xor_sync(0xffffffff, s, 8);
    s += __shfl_xor_sync(0xffffffff, s, 4);
    s += __shfl_xor_sync(0xffffffff, s, 2);
    s += __shfl_xor_sync(0xffffffff, s, 1);
    if (!l)
        yv[w] = s;
}

spmv_status spmv_csr_vector(const spmv_csr_view *A, const float *x, float *y, void *scratch, cudaStream_t stream)
{
    (void)scratch;
    if (A->rows == 0)
        return SPMV_SUCCESS;
    int bs = 512;                     // 16 warps, 16 rows a block
    long long nb = ((long long)A->rows * 32 + bs - 1) / bs;
    k_csr_warp<<<(unsigned)nb, bs, 0, stream>>>(A->rows, A->row_ptr, A->col_idx, A->values, x, y);
    return cudaGetLastError();
}
