// Conversions between CSR (the hub format) and every other format: to_X(csr)
// and to_csr(x), declared in each format's header (spmv/core/formats/).
//
// Round trips to_csr(to_X(A)) == A are exact: values, explicit zeros, empty
// rows and the shape survive. Conversions that pad (ELL, HYB, SELL) first compute
// the size they would allocate and throw ConversionRefused when it exceeds
// ConversionLimits::max_bytes, before allocating anything.
#pragma once

#include "spmv/core/formats.hpp"
