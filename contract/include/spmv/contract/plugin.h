/*
 * The plugin ABI: how a set of kernels reaches the grader.
 *
 * A plugin is a shared module exporting one C function, SPMV_PLUGIN_ENTRY,
 * that returns a table of kernels. The grader dlopen()s the module, checks
 * abi_version against the version it was built with, and looks kernels up by
 * name. Everything else in a plugin should have hidden visibility.
 *
 * Bump SPMV_PLUGIN_ABI_VERSION whenever a view struct, a launch signature or
 * this table changes layout.
 */
#ifndef SPMV_CONTRACT_PLUGIN_H
#define SPMV_CONTRACT_PLUGIN_H

#include "spmv/contract/catalog.h"
#include "spmv/contract/common.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SPMV_PLUGIN_ABI_VERSION 2u
#define SPMV_PLUGIN_ENTRY spmv_plugin_entry
#define SPMV_PLUGIN_ENTRY_NAME "spmv_plugin_entry"

/* The matrix view a kernel takes (spmv_<format>_view): SPMV_FORMAT_<NAME>
 * for every format of catalog.h, with the number it gives (SPMV_FORMAT_COO
 * = 1, SPMV_FORMAT_CSR = 2, ...). */
#define SPMV_FORMAT_ENUMERATOR(name, NAME, Name, number) SPMV_FORMAT_##NAME = number,
typedef enum spmv_format { SPMV_FORMATS(SPMV_FORMAT_ENUMERATOR) } spmv_format;
#undef SPMV_FORMAT_ENUMERATOR

/* Where the view's arrays, x, y and scratch live. Course plugins are DEVICE;
 * HOST plugins run on the CPU and exist to test the grader without a GPU. */
typedef enum spmv_memory_space { SPMV_MEMORY_DEVICE = 0, SPMV_MEMORY_HOST = 1 } spmv_memory_space;

/* Type-erased launch: `matrix` points to the spmv_<format>_view of `format`. */
typedef spmv_status (*spmv_launch_fn)(const void* matrix, const float* x, float* y, void* scratch, cudaStream_t stream);
/* Bytes of scratch memory the kernel needs for this matrix (host-side view
 * metadata only may be read: the arrays are in `memory`). NULL = none. */
typedef size_t (*spmv_scratch_size_fn)(const void* matrix);

typedef struct spmv_kernel_entry {
  const char* name; /* e.g. "csr_vector"; unique within a plugin */
  spmv_format format;
  const char* description; /* one line for reports */
  spmv_launch_fn launch;
  spmv_scratch_size_fn scratch_size;
} spmv_kernel_entry;

typedef struct spmv_plugin {
  uint32_t abi_version; /* SPMV_PLUGIN_ABI_VERSION the plugin was built with */
  const char* name;     /* e.g. "reference", "student" */
  spmv_memory_space memory;
  uint32_t kernel_count;
  const spmv_kernel_entry* kernels;
} spmv_plugin;

typedef const spmv_plugin* (*spmv_plugin_entry_fn)(void);

#if defined(__GNUC__)
#define SPMV_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define SPMV_PLUGIN_EXPORT
#endif

#ifdef __cplusplus
}
#endif

#endif /* SPMV_CONTRACT_PLUGIN_H */
