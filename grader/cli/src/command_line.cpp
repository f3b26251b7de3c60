#include "spmv/cli/command_line.hpp"

#include <charconv>

namespace spmv::cli {

std::uint64_t parse_seed(const std::string& text) {
  std::uint64_t seed = 0;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), seed);
  const bool whole = !text.empty() && result.ec == std::errc() && result.ptr == text.data() + text.size();
  require(whole, "seed", "a non-negative integer below 2^64", "'" + text + "'");
  return seed;
}

std::filesystem::path this_executable(const char* argv0) {
  std::error_code error;
  auto path = std::filesystem::read_symlink("/proc/self/exe", error);
  return error ? std::filesystem::absolute(argv0) : path;
}

}  // namespace spmv::cli
