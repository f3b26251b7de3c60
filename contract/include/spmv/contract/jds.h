/*
 * JDS (jagged diagonal storage) contract.
 *
 * Rows are sorted by decreasing length (ties keep their original order);
 * row_perm[k] is the original index of the k-th longest row. Jagged diagonal
 * d holds the d-th entry of every sorted row that has one, in sorted-row
 * order: entries jd_ptr[d] .. jd_ptr[d+1]-1. Sorted row k therefore has its
 * d-th entry at jd_ptr[d] + k, and has one iff k < jd_ptr[d+1] - jd_ptr[d].
 * Diagonal lengths are non-increasing. Empty rows come last and have no
 * entry, but y[row_perm[k]] must still be written (0).
 */
#ifndef SPMV_CONTRACT_JDS_H
#define SPMV_CONTRACT_JDS_H

#include "spmv/contract/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spmv_jds_view {
  int32_t rows;
  int32_t cols;
  int32_t nnz;
  int32_t num_diagonals;   /* = length of the longest row */
  const int32_t* row_perm; /* [rows], sorted position -> original row */
  const int32_t* jd_ptr;   /* [num_diagonals + 1], jd_ptr[0] == 0 */
  const int32_t* col_idx;  /* [nnz] */
  const float* values;     /* [nnz] */
} spmv_jds_view;

/* Kernel "jds". */
spmv_status spmv_jds(const spmv_jds_view* A, const float* x, float* y, void* scratch, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* SPMV_CONTRACT_JDS_H */
