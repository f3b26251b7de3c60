/* JDS with the diagonal starts staged in shared memory: every thread of a
 * block reads jd_ptr on every step, so one copy per block saves traffic.
 * Up to 1024 diagonals fit; longer matrices read jd_ptr from global. */
#include <cstdint>
#include "spmv/contract/jds.h"

#define STAGED 1024

static __global__ void jds_staged(int nrows, int ndiag, const int *perm, const int *jdptr, const int *colind,
                                  const float *val, const float *vec, float *res)
{
    __shared__ int start[STAGED + 1];
    const bool staged = ndiag <= STAGED;
    if (staged)
        for (int t = threadIdx.x; t <= ndiag; t += blockDim.x) start[t] = jdptr[t];
    __syncthreads();
    const int *jd = staged ? start : jdptr;
    for (long long i = threadIdx.x + (long long)blockIdx.x * blockDim.x; i < nrows;
         i += (long long)blockDim.x * gridDim.x) {
        float t = 0.f;
        int d = 0;
        for (; d < ndiag; ++d) {
            long long at = jd[d] + i;
            if (at >= jd[d + 1]) break;
            t += val[at] * vec[colind[at]];
        }
        res[perm[i]] = t;
    }
}

spmv_status spmv_jds(const spmv_jds_view *A, const float *x, float *y, void *scratch, cudaStream_t stream)
{
    (void)scratch;
    if (A->rows < 1) return SPMV_SUCCESS;
    long long want = ((long long)A->rows + 255) / 256;
    jds_staged<<<(unsigned)(want > 8192 ? 8192 : want), 256, 0, stream>>>(A->rows, A->num_diagonals, A->row_perm,
                                                                          A->jd_ptr, A->col_idx, A->values, x, y);
    return cudaGetLastError();
}
