#include "spmv/memory/formats/hyb.hpp"

namespace spmv {

HybBuffers upload(MemorySpace space, const HybMatrix& a, std::size_t guard_words) {
  HybBuffers b{upload(space, a.ell, guard_words), upload(space, a.coo, guard_words), {}};
  b.view = {b.ell.view, b.coo.view};
  return b;
}

}  // namespace spmv
