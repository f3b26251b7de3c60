/* HYB: my ELL entry point writes y; the COO remainder is sorted by row, so
 * the first entry of each row's run sums the run and adds it once. */
#include <cstdint>
#include "spmv/contract/hyb.h"

static __global__ void remainder_add(int total, const int *rid, const int *cid, const float *val, const float *vec,
                                     float *res)
{
    for (long long idx = threadIdx.x + (long long)blockIdx.x * blockDim.x; idx < total;
         idx += (long long)blockDim.x * gridDim.x) {
        const int r = rid[idx];
        if (idx > 0 && rid[idx - 1] == r) continue;  /* not the first of its row */
        float part = 0.f;
        for (long long k = idx; k < total && rid[k] == r; ++k) part += val[k] * vec[cid[k]];
        res[r] += part;                               /* the only writer of row r in this pass */
    }
}

spmv_status spmv_hyb(const spmv_hyb_view *A, const float *x, float *y, void *scratch, cudaStream_t stream)
{
    spmv_status s = spmv_ell(&A->ell, x, y, scratch, stream);
    if (s != SPMV_SUCCESS) return s;
    if (A->coo.nnz < 1) return cudaGetLastError();
    long long want = ((long long)A->coo.nnz + 255) / 256;
    remainder_add<<<(unsigned)(want > 8192 ? 8192 : want), 256, 0, stream>>>(A->coo.nnz, A->coo.row_idx,
                                                                             A->coo.col_idx, A->coo.values, x, y);
    return cudaGetLastError();
}
