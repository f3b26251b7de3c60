// The walk ELL and SELL share: a column-major block of `height` positions,
// `width` slots each, from slot `first` (ELL's arrays are one such block,
// SELL's slices one each); slot k of position i is at
// first + k * height + i.
#pragma once

#include <cstdint>

namespace spmv::hostpath {

// visit(i, k, slot) for every slot of the block, as it lies in memory.
template <typename Visit>
void for_each_slot(std::int64_t first, std::int64_t height, std::int64_t width, Visit&& visit) {
  for (std::int64_t k = 0; k < width; ++k) {
    for (std::int64_t i = 0; i < height; ++i) visit(i, k, first + k * height + i);
  }
}

}  // namespace spmv::hostpath
