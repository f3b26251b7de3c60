// Plain-text output of spmv-cases: the validate table (one row per case,
// printed as each case finishes) and the inspect summary.
#pragma once

#include <cstddef>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "case_check.hpp"
#include "spmv/contract/plugin.h"
#include "spmv/core/matrix_stats.hpp"

namespace spmv::ta {

class CaseTable {
 public:
  CaseTable(std::size_t name_width, const std::vector<const spmv_kernel_entry*>& kernels);
  void print_header(std::ostream& out) const;
  void print_row(std::ostream& out, const CaseReport& report) const;

 private:
  std::size_t name_width_;
  std::vector<std::string> kernel_names_;
};

// The state of a kernel in a table cell: ok, n/a, pass, FAIL, -.
const char* cell_text(KernelState state);

// "key  value" lines: shape, row lengths, ELL padding, HYB split, kernels.
void print_stats(std::ostream& out, const MatrixCheck& check, const std::vector<const spmv_kernel_entry*>& kernels);

// One line per log2 bucket: its lengths, its rows and a bar of '#'.
void print_histogram(std::ostream& out, const RowLengthHistogram& histogram);

// "512 B", "3.4 MiB", "17.2 GiB": binary units, as in the conversion
// library's refusals and --format-limit-mib.
std::string human_bytes(std::uint64_t bytes);

}  // namespace spmv::ta
