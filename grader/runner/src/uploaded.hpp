// A case's matrix in the format a kernel takes, copied into the runner's
// buffers (device or host memory), and the check that a launch left it as
// it was.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "spmv/memory/buffer.hpp"
#include "spmv/runner/matrix_image.hpp"

namespace spmv::runner {

class UploadedMatrix {
 public:
  virtual ~UploadedMatrix() = default;
  // The spmv_<format>_view to pass to the kernel.
  [[nodiscard]] virtual const void* view() const = 0;
  // Names of the arrays (and of the view itself) no longer equal to the
  // host originals.
  [[nodiscard]] virtual std::vector<std::string> modified_arrays() const = 0;
};

// The matrix is kept (by reference) to compare with: it must outlive the result.
std::unique_ptr<UploadedMatrix> upload_matrix(MemorySpace space, const AnyMatrix& matrix);

// Whether `buffer` still holds the `bytes` bytes at `original`.
bool same_contents(const RawBuffer& buffer, const void* original, std::size_t bytes);

}  // namespace spmv::runner
