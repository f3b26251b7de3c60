// Host containers of the sparse formats: fp32 values, int32 indices, one
// header a format (spmv/core/formats/<format>.hpp: its container, its
// conversions from and to CSR, its CPU product and its FormatTraits).
//
// Layouts are those of the contract headers (contract/include/spmv/contract),
// so a container's arrays copy verbatim into the device view of its format.
// Each container's validate() checks every invariant and throws FormatError
// naming the first violation; containers built by the conversions are
// always valid.
#pragma once

#include "spmv/core/format_base.hpp"
#include "spmv/core/formats/coo.hpp"
#include "spmv/core/formats/csr.hpp"
#include "spmv/core/formats/ell.hpp"
#include "spmv/core/formats/hyb.hpp"
#include "spmv/core/formats/jds.hpp"
#include "spmv/core/formats/sell.hpp"
