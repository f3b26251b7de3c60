// A matrix in one format, uploaded as the runner uploads it (guard zones
// around every array, spmv/runner/uploaded.hpp) next to the host container
// it came from, so a test can launch a kernel on its view and afterwards
// check that the kernel left every array of A as it was. Uploads go to device memory for
// the GPU tests, or to host memory for host-path plugins (which is how the
// harness itself is tested without a GPU).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "spmv/contract/plugin.h"
#include "spmv/core/formats.hpp"
#include "spmv/memory/format_views.hpp"
#include "spmv/runner/matrix_image.hpp"
#include "spmv/runner/uploaded.hpp"

namespace spmv::test {

class UploadedMatrix {
 public:
  UploadedMatrix(std::string label, runner::AnyMatrix host, MemorySpace space = MemorySpace::kDevice);

  [[nodiscard]] const std::string& label() const { return label_; }
  [[nodiscard]] spmv_format format() const { return runner::format_of(*host_); }
  // The spmv_<format>_view of the uploaded copy, as a kernel entry takes it.
  [[nodiscard]] const void* view() const { return uploaded_->view(); }
  // The upload the run protocol launches on (spmv/runner/launch.hpp).
  [[nodiscard]] const runner::UploadedMatrix& uploaded() const { return *uploaded_; }
  // Names of the uploaded arrays (or their guard zones) that now differ from the host copy.
  [[nodiscard]] std::vector<std::string> changed_arrays() const { return uploaded_->modified_arrays(); }

 private:
  std::string label_;
  std::unique_ptr<runner::AnyMatrix> host_;  // where the upload compares with: it must not move
  std::unique_ptr<runner::UploadedMatrix> uploaded_;
};

// Every layout a kernel of `format` is tested on for the matrix `a`, built
// by the host conversions: one per format, several ELL widths for HYB (the
// default heuristic, all-COO, width 1 and no COO at all), several slice
// heights and windows for SELL. Throws
// std::invalid_argument for a format these tests do not know yet.
std::vector<UploadedMatrix> uploaded_layouts(spmv_format format, const CsrMatrix& a,
                                             MemorySpace space = MemorySpace::kDevice);

}  // namespace spmv::test
