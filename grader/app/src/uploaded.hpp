// A case's matrix in the format a kernel takes, copied into the child's
// buffers (device or host memory), and the check that a launch left it as
// it was.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "case_data.hpp"
#include "spmv/memory/buffer.hpp"

namespace spmv::grade {

class UploadedMatrix {
 public:
  virtual ~UploadedMatrix() = default;
  // The spmv_<format>_view to pass to the kernel.
  [[nodiscard]] virtual const void* view() const = 0;
  // Names of the arrays (and of the view itself) no longer equal to the
  // host originals.
  [[nodiscard]] virtual std::vector<std::string> modified_arrays() const = 0;
};

// Throws std::invalid_argument if the case has no matrix of that format.
std::unique_ptr<UploadedMatrix> upload_matrix(MemorySpace space, spmv_format format, const PreparedCase& prepared);

// Whether `buffer` still holds the `bytes` bytes at `original`.
bool same_contents(const RawBuffer& buffer, const void* original, std::size_t bytes);

}  // namespace spmv::grade
