// What the command-line programs (spmv-grade, spmv-cases) share of their
// option parsing: the error that names a bad option, a value checked against
// its rule, an option's value when it was given, --seed's number, and where
// the running program lies (its default paths are found from there).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

#include <boost/program_options/variables_map.hpp>

namespace spmv::cli {

// A bad option, value or config file; what() is one line naming the option.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws "--<option>: expected <rule>, found <found>" unless `ok`.
template <typename T>
void require(bool ok, const char* option, const char* rule, const T& found) {
  if (!ok) {
    std::ostringstream text;
    text << "--" << option << ": expected " << rule << ", found " << found;
    throw UsageError(text.str());
  }
}

// The option's value when it was given; nullopt when absent or only defaulted.
template <typename T>
std::optional<T> get(const boost::program_options::variables_map& vm, const char* name) {
  if (vm.count(name) == 0 || vm[name].defaulted()) return std::nullopt;
  return vm[name].as<T>();
}

// --seed's value: a whole non-negative number below 2^64. Throws UsageError.
std::uint64_t parse_seed(const std::string& text);

// The running program's file (/proc/self/exe), or argv[0] made absolute
// where /proc is not mounted.
std::filesystem::path this_executable(const char* argv0);

}  // namespace spmv::cli
