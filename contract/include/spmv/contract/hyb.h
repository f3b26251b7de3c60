/*
 * HYB (hybrid ELL + COO) contract.
 *
 * A = ell + coo: each row's first entries (at most ell.width) are in the ELL
 * part, the rest of a longer row in the COO part (sorted by row). Both parts
 * have the full matrix shape. y must equal the sum of both products.
 */
#ifndef SPMV_CONTRACT_HYB_H
#define SPMV_CONTRACT_HYB_H

#include "spmv/contract/coo.h"
#include "spmv/contract/ell.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct spmv_hyb_view {
  spmv_ell_view ell;
  spmv_coo_view coo;
} spmv_hyb_view;

/* Kernel "hyb". */
spmv_status spmv_hyb(const spmv_hyb_view* A, const float* x, float* y, void* scratch, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif /* SPMV_CONTRACT_HYB_H */
