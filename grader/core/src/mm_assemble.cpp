#include "mm_assemble.hpp"

#include <algorithm>
#include <memory>
#include <utility>

namespace spmv::mm {
namespace {

// Rows up to this length are sorted by insertion (stable, no scratch);
// longer ones by std::stable_sort.
constexpr index_t kInsertionSortMaxLength = 32;

// Entries are scattered to their rows as (column, value) pairs: one random
// write per entry instead of one per array, which is what the scatter's
// time goes to when rows come in random order.
struct ColumnValue {
  index_t col;
  value_t value;
};

bool column_less(const ColumnValue& a, const ColumnValue& b) { return a.col < b.col; }

void sort_row_by_column(ColumnValue* first, ColumnValue* last) {
  // The common case: files list a row's columns in order.
  if (std::is_sorted(first, last, column_less)) return;
  if (last - first > kInsertionSortMaxLength) {
    std::stable_sort(first, last, column_less);
    return;
  }
  for (ColumnValue* next = first + 1; next < last; ++next) {
    const ColumnValue moving = *next;
    ColumnValue* hole = next;
    for (; hole > first && hole[-1].col > moving.col; --hole) *hole = hole[-1];
    *hole = moving;
  }
}

// Sorts each row of `placed` by column and writes it to `csr`, summing runs
// of equal columns (in double, rounded once). `csr.row_ptr` holds the rows'
// bounds in `placed` on entry and their bounds in `csr` on return.
void sort_and_merge_rows(ColumnValue* placed, std::size_t placed_count, CsrMatrix& csr) {
  csr.col_idx.resize(placed_count);
  csr.values.resize(placed_count);
  index_t write = 0;
  for (index_t row = 0; row < csr.rows; ++row) {
    ColumnValue* const first = placed + csr.row_ptr[row];
    ColumnValue* const last = placed + csr.row_ptr[row + 1];
    sort_row_by_column(first, last);
    csr.row_ptr[row] = write;
    for (const ColumnValue* entry = first; entry < last;) {
      const index_t col = entry->col;
      double sum = entry->value;
      for (++entry; entry < last && entry->col == col; ++entry) sum += entry->value;
      csr.col_idx[write] = col;
      csr.values[write] = narrow_to_float(sum);
      ++write;
    }
  }
  csr.row_ptr[csr.rows] = write;
  if (static_cast<std::size_t>(write) < placed_count) {
    csr.col_idx.resize(static_cast<std::size_t>(write));
    csr.values.resize(static_cast<std::size_t>(write));
    csr.col_idx.shrink_to_fit();
    csr.values.shrink_to_fit();
  }
}

}  // namespace

CsrMatrix TripletBuffer::to_csr() && {
  CsrMatrix csr;
  csr.rows = rows_;
  csr.cols = cols_;
  const bool mirrored = mirror_ != Mirror::none;
  // A pass of its own rather than counting while parsing: with rows in
  // random order each count is a cache miss, and only a tight loop keeps
  // many of them in flight at once.
  csr.row_ptr.assign(static_cast<std::size_t>(rows_) + 1, 0);
  for (std::size_t k = 0; k < row_idx_.size(); ++k) {
    ++csr.row_ptr[row_idx_[k] + 1];
    if (mirrored && row_idx_[k] != col_idx_[k]) ++csr.row_ptr[col_idx_[k] + 1];
  }
  // row_ptr[r + 1] becomes the start of row r; the scatter below advances
  // it to the end of row r, which is the start of row r + 1, as CSR wants.
  index_t start = 0;
  for (index_t row = 0; row < rows_; ++row) start += std::exchange(csr.row_ptr[row + 1], start);

  const auto placed_count = static_cast<std::size_t>(stored_entries_);
  const auto placed = std::make_unique_for_overwrite<ColumnValue[]>(placed_count);
  const value_t partner_sign = mirror_ == Mirror::skew ? value_t{-1} : value_t{1};
  for (std::size_t k = 0; k < row_idx_.size(); ++k) {
    const index_t row = row_idx_[k];
    const index_t col = col_idx_[k];
    const value_t value = values_[k];
    placed[csr.row_ptr[row + 1]++] = {col, value};
    if (mirrored && row != col) placed[csr.row_ptr[col + 1]++] = {row, partner_sign * value};
  }
  // Released before the CSR arrays are allocated, to keep the peak down.
  row_idx_ = {};
  col_idx_ = {};
  values_ = {};
  sort_and_merge_rows(placed.get(), placed_count, csr);
  return csr;
}

CsrMatrix merge_triangles(const CsrMatrix& lower, const CsrMatrix& upper, Mirror mirror,
                          const ConflictHandler& on_conflict) {
  const auto agree = [](value_t a, value_t b) { return a == b || (std::isnan(a) && std::isnan(b)); };
  TripletBuffer whole(lower.rows, lower.cols, mirror);
  whole.reserve(lower.col_idx.size() + upper.col_idx.size());
  for (index_t row = 0; row < lower.rows; ++row) {
    index_t l = lower.row_ptr[row];
    index_t u = upper.row_ptr[row];
    const index_t l_end = lower.row_ptr[row + 1];
    const index_t u_end = upper.row_ptr[row + 1];
    // Both rows are sorted by column: a merge walk.
    while (l < l_end || u < u_end) {
      const index_t l_col = l < l_end ? lower.col_idx[l] : std::numeric_limits<index_t>::max();
      const index_t u_col = u < u_end ? upper.col_idx[u] : std::numeric_limits<index_t>::max();
      if (l_col == u_col) {
        if (!agree(lower.values[l], upper.values[u])) on_conflict(row, l_col, lower.values[l], upper.values[u]);
        whole.add(row, l_col, lower.values[l]);
        ++l;
        ++u;
      } else if (l_col < u_col) {
        whole.add(row, l_col, lower.values[l++]);
      } else {
        whole.add(row, u_col, upper.values[u++]);
      }
    }
  }
  return std::move(whole).to_csr();
}

}  // namespace spmv::mm
