/*
 * COO (coordinate list) contract.
 *
 * Entry e is the triple (row_idx[e], col_idx[e], values[e]), 0 <= e < nnz.
 * Entries are sorted by row (row_idx is non-decreasing); within a row the
 * order is unspecified. Explicit zeros may be stored and count as entries.
 * Rows with no entry still need y[row] = 0.
 */
#ifndef SPMV_CONTRACT_COO_H
#define SPMV_CONTRACT_COO_H

#include "spmv/contract/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spmv_coo_view {
  int32_t rows;
  int32_t cols;
  int32_t nnz;
  const int32_t* row_idx; /* [nnz], non-decreasing */
  const int32_t* col_idx; /* [nnz] */
  const float* values;    /* [nnz] */
} spmv_coo_view;

/* Kernel "coo". */
spmv_status spmv_coo(const spmv_coo_view* A, const float* x, float* y, void* scratch, cudaStream_t stream);

/* Kernel "coo_segmented" (reference only): a segmented reduction over equal
 * tiles of entries, no atomic per entry. */
spmv_status spmv_coo_segmented(const spmv_coo_view* A, const float* x, float* y, void* scratch, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* SPMV_CONTRACT_COO_H */
