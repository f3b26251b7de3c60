// Error-message assembly for the core library: every FormatError,
// ConversionRefused and invalid_argument text is built by streaming its
// parts, so numbers print the same way everywhere.
#pragma once

#include <sstream>
#include <string>

namespace spmv::detail {

template <typename... Parts>
std::string message(const Parts&... parts) {
  std::ostringstream text;
  (text << ... << parts);
  return text.str();
}

}  // namespace spmv::detail
