/*
 * The catalog: every sparse format of the contract with its number, and
 * every kernel a submission implements. Each is written here and nowhere
 * else; everything that lists formats or kernels takes them from here:
 *
 *   - plugin.h's spmv_format enumerators and plugin_table.hpp's view_format;
 *   - the submission table (contract/src/submission_table.cpp) and the
 *     host-path plugin's table (grader/hostpath);
 *   - grader/core's format table (FormatTable, each FormatTraits' number);
 *   - CMake (cmake/SpmvCatalog.cmake reads this file): the kernel files of a
 *     submission, the core's format sources, the reference kernels a
 *     student writes too, the built-in policy's [kernels], the student kit's
 *     README;
 *   - tools/build-submission, which reads the KERNEL lines.
 *
 * Plain preprocessor, no CUDA and no C++, so that the host library includes
 * it too. Keep one entry a line, in the form shown: CMake and the shell
 * read the lines, and stop at one they cannot read.
 */
#ifndef SPMV_CONTRACT_CATALOG_H
#define SPMV_CONTRACT_CATALOG_H

/*
 * FORMAT(name, NAME, Name, number), one a format: its contract header
 * spmv/contract/<name>.h and view spmv_<name>_view, its enumerator
 * SPMV_FORMAT_<NAME>, its host container <Name>Matrix (grader/core) and its
 * number in the plugin ABI (plugins are binary-compatible: a number is
 * never changed or reused). The host table keeps this order (CSR first).
 */
/* clang-format off */
#define SPMV_FORMATS(FORMAT)  \
  FORMAT(csr, CSR, Csr, 2)    \
  FORMAT(coo, COO, Coo, 1)    \
  FORMAT(ell, ELL, Ell, 3)    \
  FORMAT(hyb, HYB, Hyb, 4)    \
  FORMAT(jds, JDS, Jds, 5)    \
  FORMAT(sell, SELL, Sell, 6)
/* clang-format on */

/*
 * KERNEL(name, description), one a kernel every submission implements, in
 * the order reports list them: the file student/<name>.cu, the launch
 * function spmv_<name> (declared in its format's contract header, which
 * gives the format), the policy's default weight 1, and the line reports
 * describe it with. The reference kernel of the same name is its baseline.
 */
/* clang-format off */
#define SPMV_SUBMISSION_KERNELS(KERNEL)                                                                  \
  KERNEL(coo, "COO, one thread per entry, atomic adds into y")                                           \
  KERNEL(csr_scalar, "CSR, one thread per row")                                                          \
  KERNEL(csr_vector, "CSR, a group of threads per row, warp-shuffle reduction")                          \
  KERNEL(ell, "ELLPACK-R, one thread per row over column-major slots")                                   \
  KERNEL(hyb, "HYB, an ELL pass writing y then a COO pass adding the long rows' rest")                   \
  KERNEL(jds, "JDS, one thread per length-sorted row along the jagged diagonals")
/* clang-format on */

#endif /* SPMV_CONTRACT_CATALOG_H */
