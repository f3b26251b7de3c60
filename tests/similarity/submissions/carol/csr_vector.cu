/* CSR vector with cooperative groups: a thread_block_tile of T threads per
 * row and cg::reduce for the sum. T is picked from nnz/rows. */
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cstdint>
#include "spmv/contract/csr.h"

namespace cg = cooperative_groups;

template <unsigned T>
static __global__ void tiled_rows(int nrows, const int *rowptr, const int *colind, const float *val,
                                  const float *vec, float *res)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<T> tile = cg::tiled_partition<T>(block);
    long long tiles_total = (long long)gridDim.x * (blockDim.x / T);
    long long my_tile = (long long)blockIdx.x * (blockDim.x / T) + tile.meta_group_rank();
    /* every tile runs the same number of iterations as its warp mates */
    long long rounds = ((long long)nrows + tiles_total - 1) / tiles_total;
    for (long long round = 0; round < rounds; ++round) {
        long long i = my_tile + round * tiles_total;
        float part = 0.f;
        if (i < nrows)
            for (int jj = rowptr[i] + (int)tile.thread_rank(); jj < rowptr[i + 1]; jj += T) part += val[jj] * vec[colind[jj]];
        float total = cg::reduce(tile, part, cg::plus<float>());
        if (i < nrows && tile.thread_rank() == 0) res[i] = total;
    }
}

template <unsigned T>
static cudaError_t go(const spmv_csr_view *A, const float *x, float *y, cudaStream_t stream)
{
    long long want = ((long long)A->rows * T + 255) / 256;
    tiled_rows<T><<<(unsigned)(want > 8192 ? 8192 : want), 256, 0, stream>>>(A->rows, A->row_ptr, A->col_idx,
                                                                             A->values, x, y);
    return cudaGetLastError();
}

spmv_status spmv_csr_vector(const spmv_csr_view *A, const float *x, float *y, void *scratch, cudaStream_t stream)
{
    (void)scratch;
    if (A->rows < 1) return SPMV_SUCCESS;
    float avg = (float)A->nnz / (float)A->rows;
    switch (avg <= 2.f ? 0 : avg <= 4.f ? 1 : avg <= 8.f ? 2 : avg <= 16.f ? 3 : 4) {
        case 0: return go<2>(A, x, y, stream);
        case 1: return go<4>(A, x, y, stream);
        case 2: return go<8>(A, x, y, stream);
        case 3: return go<16>(A, x, y, stream);
        default: return go<32>(A, x, y, stream);
    }
}
