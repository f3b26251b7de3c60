// HybMatrix uploaded: its ELL and COO parts, each as those formats upload,
// and the contract view of both.
#pragma once

#include <cstddef>
#include <string>

#include "spmv/contract/hyb.h"
#include "spmv/core/formats/hyb.hpp"
#include "spmv/memory/buffer.hpp"
#include "spmv/memory/formats/coo.hpp"
#include "spmv/memory/formats/ell.hpp"

namespace spmv {

struct HybBuffers {
  EllBuffers ell;
  CooBuffers coo;
  spmv_hyb_view view{};

  // visit(name, buffer, host array) for every array, named after its part
  // ("ell.col_idx", "coo.values").
  template <typename Visit>
  void for_each_array(const HybMatrix& a, Visit&& visit) const {
    ell.for_each_array(a.ell, [&](const char* name, const auto& buffer, const auto& host) {
      visit(std::string("ell.") + name, buffer, host);
    });
    coo.for_each_array(a.coo, [&](const char* name, const auto& buffer, const auto& host) {
      visit(std::string("coo.") + name, buffer, host);
    });
  }
};

HybBuffers upload(MemorySpace space, const HybMatrix& a, std::size_t guard_words = 0);

}  // namespace spmv
