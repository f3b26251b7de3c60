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

// Every array of the matrix lies between guard zones of this many words
// (spmv/memory/buffer.hpp: NaN around values, -1 around indices), large
// enough that a row-sized miss lands in them; a write there is a modified
// input.
inline constexpr std::size_t kMatrixGuardWords = 4096;

// The matrix is kept (by reference) to compare with: it must outlive the result.
std::unique_ptr<UploadedMatrix> upload_matrix(MemorySpace space, const AnyMatrix& matrix);
// The same for a matrix of one format (any alternative of AnyMatrix).
template <typename Matrix>
std::unique_ptr<UploadedMatrix> upload_matrix(MemorySpace space, const Matrix& matrix);

// Whether `buffer`, from byte `start`, still holds the `bytes` bytes at `original`.
bool same_contents(const RawBuffer& buffer, const void* original, std::size_t bytes, std::size_t start = 0);

}  // namespace spmv::runner
