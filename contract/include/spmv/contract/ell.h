/*
 * ELL (ELLPACK-R) contract.
 *
 * Every row is padded to `width` slots, stored column-major: slot k of row r
 * lives at index (size_t)k * rows + r, so consecutive threads (rows) read
 * consecutive addresses. Row r's real entries are slots 0 .. row_length[r]-1;
 * padding slots have col_idx == -1 and value 0. rows * width may exceed
 * 2^31: compute slot indices in 64 bits.
 */
#ifndef SPMV_CONTRACT_ELL_H
#define SPMV_CONTRACT_ELL_H

#include "spmv/contract/common.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spmv_ell_view {
  int32_t rows;
  int32_t cols;
  int32_t width;             /* slots per row (the longest row, or less in HYB) */
  const int32_t* row_length; /* [rows], real entries of each row, <= width */
  const int32_t* col_idx;    /* [rows * width], column-major, -1 for padding */
  const float* values;       /* [rows * width], column-major, 0 for padding */
} spmv_ell_view;

/* Kernel "ell". */
spmv_status spmv_ell(const spmv_ell_view* A, const float* x, float* y, void* scratch, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* SPMV_CONTRACT_ELL_H */
