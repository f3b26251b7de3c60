// A matrix of one format as a sealed memory file: the parent writes it once,
// seals it against every change (F_SEAL_WRITE, F_SEAL_SHRINK, F_SEAL_GROW)
// and passes the descriptor to runners, which can map it only read-only.
// A runner builds the format's container from it and uploads that.
#pragma once

#include <cstdint>
#include <variant>

#include "spmv/contract/plugin.h"
#include "spmv/core/format_table.hpp"
#include "spmv/core/formats.hpp"

namespace spmv::runner {

// A matrix of any format of the table (spmv/core/format_table.hpp).
template <typename List>
struct AnyMatrixOf;
template <typename... Matrices>
struct AnyMatrixOf<FormatList<Matrices...>> {
  using type = std::variant<Matrices...>;
};
using AnyMatrix = AnyMatrixOf<FormatTable>::type;

spmv_format format_of(const AnyMatrix& matrix);

// A sealed memfd holding `matrix`; the caller owns the descriptor.
// Throws std::runtime_error.
int write_matrix_image(const AnyMatrix& matrix);
// The same for a matrix of one format, written straight from its arrays
// with write(2): no copy of a large case made on the way, and no mapping
// of the file, which a child forked meanwhile by another thread would hold
// until it execs, keeping the file from its seals.
#define SPMV_RUNNER_IMAGE_WRITER(name, NAME, Name, number) int write_matrix_image(const Name##Matrix& matrix);
SPMV_FORMATS(SPMV_RUNNER_IMAGE_WRITER)
#undef SPMV_RUNNER_IMAGE_WRITER

// Reads an image back; throws std::runtime_error if it is not a valid one.
AnyMatrix read_matrix_image(int fd);

}  // namespace spmv::runner
