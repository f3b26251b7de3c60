// CSR assembly for the Matrix Market reader: entries as a file lists them
// (any order, duplicates, one triangle of a symmetric matrix) become a valid
// CsrMatrix. Private to spmv_core.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "spmv/core/formats.hpp"

namespace spmv::mm {

// Rounds like a float conversion, but a magnitude beyond the float range
// becomes an infinity explicitly rather than through an undefined cast.
inline value_t narrow_to_float(double value) {
  // Half an ulp above FLT_MAX: from here on, round-to-nearest gives infinity.
  constexpr double kFloatOverflow = 0x1.ffffffp127;
  constexpr value_t kInfinity = std::numeric_limits<value_t>::infinity();
  if (std::isfinite(value) && std::fabs(value) >= kFloatOverflow) {
    return value > 0 ? kInfinity : -kInfinity;
  }
  return static_cast<value_t>(value);
}

// How a stored off-diagonal entry (i, j, v) implies its partner (j, i).
enum class Mirror { none, symmetric, skew };

// Collects 0-based entries in file order and turns them into CSR. Nothing
// is allocated for the shape until to_csr(), so a size line alone cannot
// make it allocate.
class TripletBuffer {
 public:
  TripletBuffer(index_t rows, index_t cols, Mirror mirror) : rows_(rows), cols_(cols), mirror_(mirror) {}

  void reserve(std::size_t entries) {
    row_idx_.reserve(entries);
    col_idx_.reserve(entries);
    values_.reserve(entries);
  }

  // The caller has checked the indices against the shape and the triangle.
  void add(index_t row, index_t col, value_t value) {
    row_idx_.push_back(row);
    col_idx_.push_back(col);
    values_.push_back(value);
    stored_entries_ += mirror_ != Mirror::none && row != col ? 2 : 1;
  }

  // Entries the CSR will hold before duplicates merge (mirrored partners
  // included); callers keep it within index_t, so no row count overflows.
  [[nodiscard]] std::int64_t stored_entries() const { return stored_entries_; }

  // Entries are counting-sorted by row, which keeps file order within a
  // row, then sorted by column stably, so duplicates are summed in file
  // order (in double, rounded once) and the result is deterministic.
  CsrMatrix to_csr() &&;

 private:
  index_t rows_;
  index_t cols_;
  Mirror mirror_;
  std::vector<index_t> row_idx_;
  std::vector<index_t> col_idx_;
  std::vector<value_t> values_;
  std::int64_t stored_entries_ = 0;
};

// A place held from both sides of a symmetric file, with values that
// disagree: the caller reports it (and must throw).
using ConflictHandler = std::function<void(index_t row, index_t col, value_t lower, value_t upper)>;

// For a symmetric or skew-symmetric file read with UpperTriangle::kMirror:
// `lower` holds the entries stored on or below the diagonal, `upper` those
// stored above it, each already moved to its partner's place below the
// diagonal (and negated for skew), both as CSR with duplicates summed. A
// place in both keeps one entry when the two values agree (equal, or both
// NaN) and goes to `on_conflict` otherwise. Returns the whole matrix, every
// off-diagonal entry mirrored.
CsrMatrix merge_triangles(const CsrMatrix& lower, const CsrMatrix& upper, Mirror mirror,
                          const ConflictHandler& on_conflict);

}  // namespace spmv::mm
