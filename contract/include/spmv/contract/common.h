/*
 * Shared definitions of the SpMV kernel contract.
 *
 * Every kernel computes y = A * x for a sparse A (fp32 values, int32 indices)
 * held in device memory (or host memory for a host-path plugin, see plugin.h).
 *
 * Semantics every launch function must honour:
 *   - y is fully overwritten: its prior contents are garbage (the grader fills
 *     it with NaN), so every row, empty rows included, must be written;
 *   - A and x are read-only;
 *   - no allocation, no synchronization: work is enqueued on `stream` and the
 *     function returns at once;
 *   - scratch is caller-provided memory of the size the kernel's scratch-size
 *     function asked for (NULL when it asked for none);
 *   - the return value is SPMV_SUCCESS, a cudaError_t value of a failed launch
 *     (cudaGetLastError() after the launch), or SPMV_NOT_IMPLEMENTED.
 */
#ifndef SPMV_CONTRACT_COMMON_H
#define SPMV_CONTRACT_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 0 = success; positive = a cudaError_t; negative = contract-level codes. */
typedef int spmv_status;

#define SPMV_SUCCESS 0
/* Returned by an unfinished student stub; the grader reports "not implemented". */
#define SPMV_NOT_IMPLEMENTED (-1)

#ifdef __cplusplus
}
#endif

#endif /* SPMV_CONTRACT_COMMON_H */
