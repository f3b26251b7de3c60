/* ELL, two rows per thread (rows i and i + half) so each thread keeps two
 * independent chains of loads; the slot index is carried as a size_t. */
#include <cstdint>
#include "spmv/contract/ell.h"

static __device__ float one_row(long long i, int nrows, const int *lens, const int *colind, const float *val,
                                const float *vec)
{
    float t = 0.f;
    size_t off = (size_t)i;
    for (int s = lens[i]; s > 0; --s, off += (size_t)nrows) t += val[off] * vec[colind[off]];
    return t;
}

static __global__ void ell_pairs(int nrows, const int *lens, const int *colind, const float *val, const float *vec,
                                 float *res)
{
    long long half = ((long long)nrows + 1) / 2;
    for (long long i = threadIdx.x + (long long)blockIdx.x * blockDim.x; i < half;
         i += (long long)blockDim.x * gridDim.x) {
        float lo = one_row(i, nrows, lens, colind, val, vec);
        long long j = i + half;
        if (j < nrows) res[j] = one_row(j, nrows, lens, colind, val, vec);
        res[i] = lo;
    }
}

spmv_status spmv_ell(const spmv_ell_view *A, const float *x, float *y, void *scratch, cudaStream_t stream)
{
    (void)scratch;
    if (A->rows < 1) return SPMV_SUCCESS;
    long long want = ((long long)A->rows / 2 + 256) / 256;
    ell_pairs<<<(unsigned)(want > 8192 ? 8192 : want), 256, 0, stream>>>(A->rows, A->row_length, A->col_idx,
                                                                         A->values, x, y);
    return cudaGetLastError();
}
