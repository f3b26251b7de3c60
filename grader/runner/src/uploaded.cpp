#include "spmv/runner/uploaded.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <stdexcept>

#include <type_traits>
#include <variant>

namespace spmv::runner {
namespace {

struct ArrayRecord {
  std::string name;
  const RawBuffer* buffer;
  std::size_t offset;  // of the values in the buffer, after its guard zone
  const void* original;
  std::size_t bytes;
  std::function<bool()> guards_intact;
};

template <typename T>
ArrayRecord record(std::string name, const Buffer<T>& buffer, const std::vector<T>& original) {
  return {std::move(name), &buffer.raw(), buffer.offset_bytes(), original.data(), original.size() * sizeof(T),
          [&buffer] { return buffer.guards_intact(); }};
}

std::vector<ArrayRecord> arrays_of(const CooBuffers& b, const CooMatrix& a, const std::string& prefix = {}) {
  return {record(prefix + "row_idx", b.row_idx, a.row_idx), record(prefix + "col_idx", b.col_idx, a.col_idx),
          record(prefix + "values", b.values, a.values)};
}
std::vector<ArrayRecord> arrays_of(const CsrBuffers& b, const CsrMatrix& a) {
  return {record("row_ptr", b.row_ptr, a.row_ptr), record("col_idx", b.col_idx, a.col_idx),
          record("values", b.values, a.values)};
}
std::vector<ArrayRecord> arrays_of(const EllBuffers& b, const EllMatrix& a, const std::string& prefix = {}) {
  return {record(prefix + "row_length", b.row_length, a.row_length), record(prefix + "col_idx", b.col_idx, a.col_idx),
          record(prefix + "values", b.values, a.values)};
}
std::vector<ArrayRecord> arrays_of(const HybBuffers& b, const HybMatrix& a) {
  auto arrays = arrays_of(b.ell, a.ell, "ell.");
  for (auto& coo : arrays_of(b.coo, a.coo, "coo.")) arrays.push_back(std::move(coo));
  return arrays;
}
std::vector<ArrayRecord> arrays_of(const JdsBuffers& b, const JdsMatrix& a) {
  return {record("row_perm", b.row_perm, a.row_perm), record("jd_ptr", b.jd_ptr, a.jd_ptr),
          record("col_idx", b.col_idx, a.col_idx), record("values", b.values, a.values)};
}

std::vector<ArrayRecord> arrays_of(const SellBuffers& b, const SellMatrix& a) {
  return {record("slice_ptr", b.slice_ptr, a.slice_ptr), record("row_perm", b.row_perm, a.row_perm),
          record("col_idx", b.col_idx, a.col_idx), record("values", b.values, a.values)};
}

// Buffers of one format and the host matrix they came from. A kernel gets
// a pointer to the view, so the view's bytes are kept to compare with too
// (bytes, not a copy: a copy need not preserve the padding).
template <typename Buffers, typename Matrix>
class Uploaded final : public UploadedMatrix {
 public:
  Uploaded(MemorySpace space, const Matrix& matrix)
      : buffers_(upload(space, matrix, kMatrixGuardWords)), arrays_(arrays_of(buffers_, matrix)) {
    std::memcpy(original_view_.data(), &buffers_.view, sizeof buffers_.view);
  }

  [[nodiscard]] const void* view() const override { return &buffers_.view; }

  [[nodiscard]] std::vector<std::string> modified_arrays() const override {
    std::vector<std::string> modified;
    if (std::memcmp(&buffers_.view, original_view_.data(), sizeof buffers_.view) != 0) {
      modified.emplace_back("the view struct");
    }
    for (const auto& array : arrays_) {
      if (!same_contents(*array.buffer, array.original, array.bytes, array.offset)) modified.push_back(array.name);
      if (!array.guards_intact()) modified.push_back("the guard zones around " + array.name);
    }
    return modified;
  }

 private:
  Buffers buffers_;
  std::vector<ArrayRecord> arrays_;
  std::array<unsigned char, sizeof(Buffers::view)> original_view_{};
};

}  // namespace

bool same_contents(const RawBuffer& buffer, const void* original, std::size_t bytes, std::size_t start) {
  constexpr std::size_t kChunk = std::size_t{16} << 20;
  std::vector<char> copy(std::min(bytes, kChunk));
  const auto* expected = static_cast<const char*>(original);
  for (std::size_t offset = 0; offset < bytes; offset += kChunk) {
    const std::size_t length = std::min(kChunk, bytes - offset);
    buffer.copy_to_host(copy.data(), length, start + offset);
    if (std::memcmp(copy.data(), expected + offset, length) != 0) return false;
  }
  return true;
}

template <typename Matrix>
std::unique_ptr<UploadedMatrix> upload_matrix(MemorySpace space, const Matrix& matrix) {
  using Buffers = decltype(upload(space, matrix, kMatrixGuardWords));
  return std::make_unique<Uploaded<Buffers, Matrix>>(space, matrix);
}

template std::unique_ptr<UploadedMatrix> upload_matrix(MemorySpace, const CsrMatrix&);
template std::unique_ptr<UploadedMatrix> upload_matrix(MemorySpace, const CooMatrix&);
template std::unique_ptr<UploadedMatrix> upload_matrix(MemorySpace, const EllMatrix&);
template std::unique_ptr<UploadedMatrix> upload_matrix(MemorySpace, const HybMatrix&);
template std::unique_ptr<UploadedMatrix> upload_matrix(MemorySpace, const JdsMatrix&);
template std::unique_ptr<UploadedMatrix> upload_matrix(MemorySpace, const SellMatrix&);

std::unique_ptr<UploadedMatrix> upload_matrix(MemorySpace space, const AnyMatrix& matrix) {
  return std::visit([&](const auto& m) { return upload_matrix(space, m); }, matrix);
}

}  // namespace spmv::runner
