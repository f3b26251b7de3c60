#include "spmv/contract/coo.h"

// one thread = one nonzero
__global__ void k_coo(int nz, const int *ri, const int *ci, const float *v, const float *xv, float *yv)
{
    long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nz)
        return;
    int r = ri[t];
    atomicAdd(yv + r, v[t] * xv[ci[t]]);
}

spmv_status spmv_coo(const spmv_coo_view *A, const float *x, float *y, void *scratch, cudaStream_t stream)
{
    (void)scratch;
    if (A->rows == 0)
        return SPMV_SUCCESS;
    cudaError_t err = cudaMemsetAsync(y, 0, (size_t)A->rows * sizeof(float), stream);
    if (err != cudaSuccess)
        return err;
    if (A->nnz == 0)
        return SPMV_SUCCESS;
    int bs = 512;
    long long nb = ((long long)A->nnz + bs - 1) / bs;
    k_coo<<<(unsigned)nb, bs, 0, stream>>>(A->nnz, A->row_idx, A->col_idx, A->values, x, y);
    return cudaGetLastError();
}
