// Small text helpers shared by the readers of the grader's own files.
#pragma once

#include <string_view>

namespace spmv {

// `text` without the white space (" \t\r\n\f\v") at either end.
std::string_view trim(std::string_view text);

}  // namespace spmv
