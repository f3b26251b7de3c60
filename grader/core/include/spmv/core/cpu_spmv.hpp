// Sequential y = A * x for every format, each walking its own format's arrays
// (padding, permutation and diagonals included): the second oracle, proving
// that each layout means what the contract says. Accumulates in fp64 and
// rounds each row's sum to fp32 once. cpu_spmv(const M&, x) is declared in
// each format's header and defined in src/cpu_spmv/<format>.cpp, which the
// student kit leaves out (each walks a layout as its kernel does).
#pragma once

#include "spmv/core/formats.hpp"
