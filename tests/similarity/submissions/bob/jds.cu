#include "spmv/contract/jds.h"

__global__ void k_jds(int n, int nd, const int *perm, const int *jd, const int *cj, const float *a, const float *xv,
                      float *yv)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float s = 0.f;
    for (int d = 0; d < nd; d++) {
        int base = jd[d];
        if (base + i >= jd[d + 1])
            break;                    // diagonals only get shorter
        s = fmaf(a[base + i], xv[cj[base + i]], s);
    }
    yv[perm[i]] = s;
}

spmv_status spmv_jds(const spmv_jds_view *A, const float *x, float *y, void *scratch, cudaStream_t stream)
{
    (void)scratch;
    if (A->rows == 0)
        return SPMV_SUCCESS;
    int bs = 512;
    long long nb = ((long long)A->rows + bs - 1) / bs;
    k_jds<<<(unsigned)nb, bs, 0, stream>>>(A->rows, A->num_diagonals, A->row_perm, A->jd_ptr, A->col_idx, A->values,
                                           x, y);
    return cudaGetLastError();
}
