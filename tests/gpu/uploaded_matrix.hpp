// A matrix in one format, uploaded next to the host container it came from,
// so a test can launch a kernel on its view and afterwards check that the
// kernel left every array of A as it was. Uploads go to device memory for
// the GPU tests, or to host memory for host-path plugins (which is how the
// harness itself is tested without a GPU).
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "spmv/contract/plugin.h"
#include "spmv/core/formats.hpp"
#include "spmv/memory/buffer.hpp"

namespace spmv::test {

class UploadedMatrix {
 public:
  UploadedMatrix(std::string label, CooMatrix host, MemorySpace space = MemorySpace::kDevice);
  UploadedMatrix(std::string label, CsrMatrix host, MemorySpace space = MemorySpace::kDevice);
  UploadedMatrix(std::string label, EllMatrix host, MemorySpace space = MemorySpace::kDevice);
  UploadedMatrix(std::string label, HybMatrix host, MemorySpace space = MemorySpace::kDevice);
  UploadedMatrix(std::string label, JdsMatrix host, MemorySpace space = MemorySpace::kDevice);
  UploadedMatrix(std::string label, SellMatrix host, MemorySpace space = MemorySpace::kDevice);

  [[nodiscard]] const std::string& label() const { return label_; }
  [[nodiscard]] spmv_format format() const;
  // The spmv_<format>_view of the uploaded copy, as a kernel entry takes it.
  [[nodiscard]] const void* view() const;
  // Names of the uploaded arrays whose contents now differ from the host copy.
  [[nodiscard]] std::vector<std::string> changed_arrays() const;

 private:
  template <typename Host, typename Buffers>
  struct Held {
    Host host;
    Buffers uploaded;
  };
  using Storage = std::variant<Held<CooMatrix, CooBuffers>, Held<CsrMatrix, CsrBuffers>, Held<EllMatrix, EllBuffers>,
                               Held<HybMatrix, HybBuffers>, Held<JdsMatrix, JdsBuffers>, Held<SellMatrix, SellBuffers>>;

  template <typename Host>
  static Storage hold(Host host, MemorySpace space);

  std::string label_;
  Storage storage_;
};

// Every layout a kernel of `format` is tested on for the matrix `a`, built
// by the host conversions: one per format, several ELL widths for HYB (the
// default heuristic, all-COO, width 1 and no COO at all), several slice
// heights and windows for SELL. Throws
// std::invalid_argument for a format these tests do not know yet.
std::vector<UploadedMatrix> uploaded_layouts(spmv_format format, const CsrMatrix& a,
                                             MemorySpace space = MemorySpace::kDevice);

}  // namespace spmv::test
