// A case's matrix in the format a kernel takes, copied into the runner's
// buffers (device or host memory), and the check that a launch left it as
// it was.
#pragma once

#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "spmv/memory/format_views.hpp"
#include "spmv/runner/matrix_image.hpp"

namespace spmv::runner {

class UploadedMatrix {
 public:
  UploadedMatrix(spmv_format format, std::pair<std::int64_t, std::int64_t> shape)
      : format_(format), rows_(shape.first), cols_(shape.second) {}
  virtual ~UploadedMatrix() = default;
  // The spmv_<format>_view to pass to the kernel.
  [[nodiscard]] virtual const void* view() const = 0;
  // Names of the arrays (and of the view itself) no longer equal to the
  // host originals; of an upload without them, only the view and the guard
  // zones are compared.
  [[nodiscard]] virtual std::vector<std::string> modified_arrays() const = 0;
  [[nodiscard]] spmv_format format() const { return format_; }
  [[nodiscard]] std::int64_t rows() const { return rows_; }
  [[nodiscard]] std::int64_t cols() const { return cols_; }

 private:
  spmv_format format_;
  std::int64_t rows_, cols_;
};

// Whether an upload keeps pointers to the host arrays it came from, to
// compare with after a launch (the host matrix must then outlive it).
enum class Originals { kKept, kNotKept };

// Every array of the matrix lies between guard zones of this many words
// (spmv/memory/buffer.hpp: NaN around values, -1 around indices), large
// enough that a row-sized miss lands in them; a write there is a modified
// input.
inline constexpr std::size_t kMatrixGuardWords = 4096;

// Whether `buffer`, from byte `start`, still holds the `bytes` bytes at `original`.
bool same_contents(const RawBuffer& buffer, const void* original, std::size_t bytes, std::size_t start = 0);

namespace upload_detail {

// A container's rows and columns: members of most, functions of HYB's
// (those of its parts).
template <typename Matrix>
std::pair<std::int64_t, std::int64_t> shape_of(const Matrix& m) {
  if constexpr (requires { m.rows(); }) {
    return {m.rows(), m.cols()};
  } else {
    return {m.rows, m.cols};
  }
}

struct ArrayRecord {
  std::string name;
  const RawBuffer* buffer;
  std::size_t offset;  // of the values in the buffer, after its guard zone
  const void* original;
  std::size_t bytes;
  std::function<bool()> guards_intact;
};

// Every array of `buffers` with the host array it was uploaded from (none
// kept: a null original), as the format's Buffers::for_each_array names them.
template <typename Buffers, typename Matrix>
std::vector<ArrayRecord> arrays_of(const Buffers& buffers, const Matrix& matrix, Originals originals) {
  std::vector<ArrayRecord> arrays;
  buffers.for_each_array(matrix, [&arrays, originals](std::string name, const auto& buffer, const auto& original) {
    using T = typename std::decay_t<decltype(original)>::value_type;
    arrays.push_back({std::move(name), &buffer.raw(), buffer.offset_bytes(),
                      originals == Originals::kKept ? original.data() : nullptr, original.size() * sizeof(T),
                      [&buffer] { return buffer.guards_intact(); }});
  });
  return arrays;
}

// Buffers of one format and the host matrix they came from. A kernel gets
// a pointer to the view, so the view's bytes are kept to compare with too
// (bytes, not a copy: a copy need not preserve the padding).
template <typename Matrix>
class Uploaded final : public UploadedMatrix {
 public:
  using Buffers = typename FormatViews<Matrix>::Buffers;

  Uploaded(MemorySpace space, const Matrix& matrix, Originals originals)
      : UploadedMatrix(static_cast<spmv_format>(FormatTraits<Matrix>::id), shape_of(matrix)),
        buffers_(upload(space, matrix, kMatrixGuardWords)),
        arrays_(arrays_of(buffers_, matrix, originals)) {
    std::memcpy(original_view_.data(), &buffers_.view, sizeof buffers_.view);
  }

  [[nodiscard]] const void* view() const override { return &buffers_.view; }

  [[nodiscard]] std::vector<std::string> modified_arrays() const override {
    std::vector<std::string> modified;
    if (std::memcmp(&buffers_.view, original_view_.data(), sizeof buffers_.view) != 0) {
      modified.emplace_back("the view struct");
    }
    for (const auto& array : arrays_) {
      if (array.original != nullptr && !same_contents(*array.buffer, array.original, array.bytes, array.offset)) {
        modified.push_back(array.name);
      }
      if (!array.guards_intact()) modified.push_back("the guard zones around " + array.name);
    }
    return modified;
  }

 private:
  Buffers buffers_;
  std::vector<ArrayRecord> arrays_;
  std::array<unsigned char, sizeof(Buffers::view)> original_view_{};
};

}  // namespace upload_detail

// With Originals::kKept the matrix is kept (by reference) to compare with:
// it must outlive the result.
std::unique_ptr<UploadedMatrix> upload_matrix(MemorySpace space, const AnyMatrix& matrix,
                                              Originals originals = Originals::kKept);
// The same for a matrix of one format (any alternative of AnyMatrix).
template <typename Matrix>
std::unique_ptr<UploadedMatrix> upload_matrix(MemorySpace space, const Matrix& matrix,
                                              Originals originals = Originals::kKept) {
  return std::make_unique<upload_detail::Uploaded<Matrix>>(space, matrix, originals);
}

}  // namespace spmv::runner
