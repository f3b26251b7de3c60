#include "spmv/runner/launch.hpp"

#include <cstring>
#include <stdexcept>

#include "spmv/runner/protocol.hpp"
#include "spmv/runner/x_values.hpp"
#include "x_fill.hpp"

namespace spmv::runner {

LaunchArea::LaunchArea(Executor& executor, const UploadedMatrix& matrix, const spmv_kernel_entry* kernel,
                       std::int64_t rows, std::int64_t cols, const RawBuffer* shared_scratch)
    : executor_(executor),
      matrix_(matrix),
      kernel_(kernel),
      rows_(rows),
      cols_(cols),
      x_(executor.space(), (static_cast<std::size_t>(cols) + 2 * kXGuardWords) * sizeof(float)),
      y_(executor.space(), slot_words(rows) * sizeof(float)) {
  if (rows < 0 || cols < 0) throw std::invalid_argument("a launch area of negative size");
  if (shared_scratch != nullptr) {
    scratch_data_ = shared_scratch->data();
  } else if (kernel_ != nullptr) {
    scratch_ = RawBuffer(executor.space(), kernel_->scratch_size != nullptr ? kernel_->scratch_size(matrix.view()) : 0);
    scratch_data_ = scratch_.data();
  }
}

const float* LaunchArea::x() const { return static_cast<const float*>(x_.data()) + kXGuardWords; }
float* LaunchArea::y() const { return static_cast<float*>(y_.data()) + kYGuardWords; }

void LaunchArea::prepare(std::uint64_t seed) {
  const auto n = static_cast<std::size_t>(cols_);
  fill_x(executor_, x_.data(), n, seed);
  fill_y(executor_, y_.data(), static_cast<std::size_t>(rows_));
  check_cuda(executor_.synchronize(), "filling x and y");
  prepared_ = true;
  x_seed_ = seed;
  x_was_given_ = false;
  x_given_.clear();
}

void LaunchArea::prepare(std::span<const float> x) {
  if (x.size() != static_cast<std::size_t>(cols_)) {
    throw std::invalid_argument("x has " + std::to_string(x.size()) + " values for " + std::to_string(cols_) +
                                " columns");
  }
  std::vector<std::uint32_t> words(x.size() + 2 * kXGuardWords, kXGuardBits);
  if (!x.empty()) std::memcpy(words.data() + kXGuardWords, x.data(), x.size_bytes());
  x_.copy_from_host(words.data(), words.size() * sizeof(std::uint32_t));
  fill_y(executor_, y_.data(), static_cast<std::size_t>(rows_));
  check_cuda(executor_.synchronize(), "filling y");
  prepared_ = true;
  x_was_given_ = true;
  x_given_.assign(x.begin(), x.end());
}

LaunchStatus LaunchArea::launch() {
  LaunchStatus result;
  if (kernel_ == nullptr) return result;
  result.status = kernel_->launch(matrix_.view(), x(), y(), scratch_data_, executor_.stream());
  // Waited for even when the launch says it failed: nothing it started may
  // still run when y is read.
  result.error = executor_.synchronize();
  return result;
}

spmv_status LaunchArea::enqueue(float* y) const {
  return kernel_ != nullptr ? kernel_->launch(matrix_.view(), x(), y, scratch_data_, executor_.stream()) : SPMV_SUCCESS;
}

void LaunchArea::copy_slot(std::uint32_t* slot) const { y_.copy_to_host(slot, y_.bytes()); }

std::vector<std::uint32_t> LaunchArea::slot() const {
  std::vector<std::uint32_t> words(slot_words(rows_));
  copy_slot(words.data());
  return words;
}

std::vector<std::string> LaunchArea::modified_inputs(bool with_matrix) const {
  std::vector<std::string> modified = with_matrix ? matrix_.modified_arrays() : std::vector<std::string>{};
  if (!prepared_) return modified;
  const auto n = static_cast<std::size_t>(cols_);
  std::vector<std::uint32_t> values(n);
  if (x_was_given_) {
    if (n > 0) std::memcpy(values.data(), x_given_.data(), n * sizeof(float));
  } else {
    for (std::size_t i = 0; i < n; ++i) values[i] = x_bits(x_seed_, i);
  }
  const std::vector<std::uint32_t> guard(kXGuardWords, kXGuardBits);
  const std::size_t guard_bytes = kXGuardWords * sizeof(std::uint32_t);
  const std::size_t x_bytes = n * sizeof(float);
  if (!same_contents(x_, values.data(), x_bytes, guard_bytes)) modified.emplace_back("x");
  if (!same_contents(x_, guard.data(), guard_bytes) ||
      !same_contents(x_, guard.data(), guard_bytes, guard_bytes + x_bytes)) {
    modified.emplace_back("the guard zones around x");
  }
  return modified;
}

std::vector<float> y_of_slot(std::span<const std::uint32_t> slot, std::int64_t rows) {
  std::vector<float> y(static_cast<std::size_t>(rows));
  if (rows > 0) std::memcpy(y.data(), slot.data() + kYGuardWords, y.size() * sizeof(float));
  return y;
}

std::span<const std::uint32_t> guard_before(std::span<const std::uint32_t> slot) {
  return slot.subspan(0, kYGuardWords);
}

std::span<const std::uint32_t> guard_after(std::span<const std::uint32_t> slot, std::int64_t rows) {
  return slot.subspan(kYGuardWords + static_cast<std::size_t>(rows), kYGuardWords);
}

std::string describe_launch(const LaunchStatus& status) {
  if (status.status == SPMV_NOT_IMPLEMENTED) return "returned SPMV_NOT_IMPLEMENTED";
  if (status.status != SPMV_SUCCESS) {
    return "returned " + (status.status > 0 ? cuda_error_name(status.status) : std::to_string(status.status));
  }
  if (status.error != 0) return "left " + cuda_error_name(status.error);
  return "";
}

}  // namespace spmv::runner
