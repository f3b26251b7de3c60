/*
 * CSR (compressed sparse row) contract.
 *
 * Row r holds entries row_ptr[r] .. row_ptr[r+1]-1 of col_idx/values;
 * row_ptr[0] == 0, row_ptr[rows] == nnz, row_ptr is non-decreasing (equal
 * neighbours mean an empty row). Column indices within a row are sorted and
 * unique (duplicates in an input file are summed on reading).
 */
#ifndef SPMV_CONTRACT_CSR_H
#define SPMV_CONTRACT_CSR_H

#include "spmv/contract/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spmv_csr_view {
  int32_t rows;
  int32_t cols;
  int32_t nnz;
  const int32_t* row_ptr; /* [rows + 1] */
  const int32_t* col_idx; /* [nnz] */
  const float* values;    /* [nnz] */
} spmv_csr_view;

/* Kernel "csr_scalar": one thread per row. */
spmv_status spmv_csr_scalar(const spmv_csr_view* A, const float* x, float* y, void* scratch, cudaStream_t stream);

/* Kernel "csr_vector": a group of threads per row (its size chosen from the
 * mean row length) that reduces its partial sums with warp shuffles. */
spmv_status spmv_csr_vector(const spmv_csr_view* A, const float* x, float* y, void* scratch, cudaStream_t stream);

/* Kernel "csr_merge" (reference only): merge-path load balancing, equal
 * shares of row ends plus entries per block whatever the row lengths. Its
 * scratch holds where each block's share starts; a call checks what an
 * earlier call left there and searches only where the check fails, so the
 * scratch may hold anything. */
spmv_status spmv_csr_merge(const spmv_csr_view* A, const float* x, float* y, void* scratch, cudaStream_t stream);
size_t spmv_csr_merge_scratch_size(const spmv_csr_view* A);

/* Kernel "csr_stream" (reference only): blocks of consecutive rows whose
 * entries are loaded coalesced into shared memory and summed from there
 * (CSR-stream); no partition, no atomics. */
spmv_status spmv_csr_stream(const spmv_csr_view* A, const float* x, float* y, void* scratch, cudaStream_t stream);

/* Kernel "auto" (reference only): picks csr_scalar, csr_vector, csr_merge
 * or row blocks (csr_stream's kernel) from the matrix's row lengths (the
 * rule is in the reference's csr_auto.hpp). */
spmv_status spmv_csr_auto(const spmv_csr_view* A, const float* x, float* y, void* scratch, cudaStream_t stream);
size_t spmv_csr_auto_scratch_size(const spmv_csr_view* A);

#ifdef __cplusplus
}
#endif

#endif /* SPMV_CONTRACT_CSR_H */
