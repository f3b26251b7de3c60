/* COO with a warp-level pre-reduction: entries are sorted by row, so the
 * lanes of a warp mostly share a row. Runs of equal rows are summed with a
 * segmented shuffle scan and only the last lane of each run issues the
 * atomic, which cuts contention on long rows. */
#include <cstdint>
#include "spmv/contract/coo.h"

static __global__ void clear_vector(float *v, int length)
{
    for (long long idx = threadIdx.x + (long long)blockIdx.x * blockDim.x; idx < length;
         idx += (long long)blockDim.x * gridDim.x)
        v[idx] = 0.f;
}

static __global__ void coo_segmented_warp(int total, const int *rid, const int *cid, const float *val,
                                          const float *vec, float *res)
{
    const unsigned full = 0xffffffffu;
    const int laneid = threadIdx.x % 32;
    for (long long base = (long long)blockIdx.x * blockDim.x; base < total; base += (long long)blockDim.x * gridDim.x) {
        long long idx = base + threadIdx.x;
        bool live = idx < total;
        int myrow = live ? rid[idx] : -1;
        float part = live ? val[idx] * vec[cid[idx]] : 0.f;
        for (int d = 1; d < 32; d <<= 1) {
            float up = __shfl_up_sync(full, part, d);
            int uprow = __shfl_up_sync(full, myrow, d);
            if (laneid >= d && uprow == myrow) part += up;
        }
        int nextrow = __shfl_down_sync(full, myrow, 1);
        bool tail = laneid == 31 || nextrow != myrow;
        if (live && tail) atomicAdd(res + myrow, part);
    }
}

spmv_status spmv_coo(const spmv_coo_view *A, const float *x, float *y, void *scratch, cudaStream_t stream)
{
    (void)scratch;
    if (A->rows < 1) return SPMV_SUCCESS;
    int grid_clear = (int)((A->rows + 1023) / 1024);
    clear_vector<<<grid_clear > 256 ? 256 : grid_clear, 1024, 0, stream>>>(y, A->rows);
    if (A->nnz > 0) {
        long long want = ((long long)A->nnz + 255) / 256;
        coo_segmented_warp<<<(unsigned)(want > 8192 ? 8192 : want), 256, 0, stream>>>(A->nnz, A->row_idx,
                                                                                     A->col_idx, A->values, x, y);
    }
    return cudaGetLastError();
}
