/*
 * Sliced ELL (SELL-C-sigma) contract.
 *
 * Rows are first reordered: within each window of `sort_window` consecutive
 * rows (sigma), rows are sorted by decreasing length (a stable sort, so equal
 * rows keep their order). Position p of the reordered matrix holds matrix
 * row row_perm[p]; row_perm is NULL when the order is the identity (sigma 1,
 * or no window needed reordering).
 *
 * Positions are cut into slices of `slice_height` consecutive positions (C).
 * Slice s is an ELL block of C positions by width_s slots, width_s being the
 * longest row of the slice, stored column-major from slice_ptr[s]: slot k of
 * the slice's local position i is element slice_ptr[s] + k * C + i. So
 * width_s = (slice_ptr[s+1] - slice_ptr[s]) / C. Padding slots (after a
 * row's entries, and every slot of the positions past `rows` in the last
 * slice) hold col_idx -1 and value 0; a row's real entries come first, in
 * increasing column order. Slot indices may exceed 2^31: they are 64-bit.
 *
 * Like every format, every row of y is written: rows with no entry get 0.
 */
#ifndef SPMV_CONTRACT_SELL_H
#define SPMV_CONTRACT_SELL_H

#include "spmv/contract/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spmv_sell_view {
  int32_t rows;
  int32_t cols;
  int32_t nnz;              /* real entries, padding excluded */
  int32_t slice_height;     /* C: positions per slice, 1 .. 1024 */
  int32_t sort_window;      /* sigma: rows per sorting window, >= 1 */
  int32_t slices;           /* ceil(rows / C) */
  const int64_t* slice_ptr; /* [slices + 1], slice_ptr[0] == 0 */
  const int32_t* row_perm;  /* [rows], or NULL for the identity */
  const int32_t* col_idx;   /* [slice_ptr[slices]], -1 for padding */
  const float* values;      /* [slice_ptr[slices]], 0 for padding */
} spmv_sell_view;

/* Kernel "sell". */
spmv_status spmv_sell(const spmv_sell_view* A, const float* x, float* y, void* scratch, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* SPMV_CONTRACT_SELL_H */
