#include "spmv/core/memory_fit.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string_view>

#include "message.hpp"

namespace spmv {
namespace {

using detail::message;

constexpr std::uint64_t kUnlimited = std::numeric_limits<std::uint64_t>::max();

void take_smaller(MemoryBudget& budget, std::uint64_t bytes, const std::string& source) {
  if (bytes > 0 && bytes < budget.machine_bytes) {
    budget.machine_bytes = bytes;
    budget.source = source;
  }
}

// A small file's text (at most 4 KiB), read without a stream: the reader
// checks sizes before it allocates anything large, and so does this.
std::string small_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::array<char, 4096> buffer{};
  const ssize_t got = ::read(fd, buffer.data(), buffer.size());
  ::close(fd);
  return got > 0 ? std::string(buffer.data(), static_cast<std::size_t>(got)) : std::string();
}

// A cgroup file holding a number of bytes or "max".
std::uint64_t cgroup_value(const std::string& file) {
  const std::string text = small_file(file);
  const std::size_t end_of_number = text.find_first_not_of("0123456789");
  const std::string_view digits(text.data(), end_of_number == std::string::npos ? text.size() : end_of_number);
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  return !digits.empty() && error == std::errc{} && end == digits.data() + digits.size() ? value : kUnlimited;
}

// The memory limit of this process's cgroup and of each cgroup above it:
// "0::<path>" (cgroup v2: memory.max) or "<n>:...memory...:<path>" (v1:
// memory.limit_in_bytes) in /proc/self/cgroup.
void take_cgroup_limits(MemoryBudget& budget) {
  const std::string cgroups = small_file("/proc/self/cgroup");
  for (std::size_t start = 0; start < cgroups.size();) {
    const std::size_t end = std::min(cgroups.find('\n', start), cgroups.size());
    const std::string_view line(cgroups.data() + start, end - start);
    start = end + 1;
    const std::size_t first = line.find(':');
    const std::size_t second = first == std::string_view::npos ? first : line.find(':', first + 1);
    if (second == std::string_view::npos) continue;
    const std::string controllers(line.substr(first + 1, second - first - 1));
    const bool v2 = controllers.empty();
    const bool v1_memory = ("," + controllers + ",").find(",memory,") != std::string::npos;
    if (!v2 && !v1_memory) continue;
    const std::string base = v2 ? "/sys/fs/cgroup" : "/sys/fs/cgroup/memory";
    const char* file = v2 ? "/memory.max" : "/memory.limit_in_bytes";
    const char* source = v2 ? "cgroup memory.max" : "cgroup memory.limit_in_bytes";
    std::string group = base + std::string(line.substr(second + 1));
    while (group.size() > base.size() && group.back() == '/') group.pop_back();
    for (;;) {
      take_smaller(budget, cgroup_value(group + file), source);
      const std::size_t slash = group.rfind('/');
      if (group.size() <= base.size() || slash == std::string::npos || slash < base.size()) break;
      group.resize(slash);
    }
  }
}

void take_rlimit(MemoryBudget& budget, int resource, const char* name) {
  rlimit limit{};
  if (::getrlimit(resource, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    take_smaller(budget, static_cast<std::uint64_t>(limit.rlim_cur), name);
  }
}

MemoryBudget measured_budget() {
  MemoryBudget budget{kUnlimited, "no limit found"};
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page_size > 0) {
    take_smaller(budget, static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page_size), "physical memory");
  }
  take_cgroup_limits(budget);
  take_rlimit(budget, RLIMIT_AS, "RLIMIT_AS");
  take_rlimit(budget, RLIMIT_DATA, "RLIMIT_DATA");
  return budget;
}

std::uint64_t parse_bytes(std::string_view text) {
  const auto fail = [&]() -> std::uint64_t {
    throw std::invalid_argument(
        message("SPMV_MEMORY_BYTES: expected a number of bytes such as 68719476736 or 64G "
                "(K, M, G, T: binary), found '",
                text, "'"));
  };
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end == text.data()) return fail();
  std::string_view suffix(end, static_cast<std::size_t>(text.data() + text.size() - end));
  int shift = 0;
  if (!suffix.empty()) {
    const char unit = static_cast<char>(std::toupper(static_cast<unsigned char>(suffix.front())));
    shift = unit == 'K' ? 10 : unit == 'M' ? 20 : unit == 'G' ? 30 : unit == 'T' ? 40 : -1;
    suffix.remove_prefix(1);
    if (suffix == "iB" || suffix == "B" || suffix == "ib" || suffix == "b") suffix = {};
    if (shift < 0 || !suffix.empty()) return fail();
  }
  if (value == 0 || value > (kUnlimited >> shift)) return fail();
  return value << shift;
}

// Saturating arithmetic: a shape near the int32 limits in every extent
// still gives a figure, never a wrapped one.
std::uint64_t add(std::uint64_t a, std::uint64_t b) { return a > kUnlimited - b ? kUnlimited : a + b; }
std::uint64_t times(std::uint64_t factor, std::int64_t count) {
  const auto n = static_cast<std::uint64_t>(std::max<std::int64_t>(count, 0));
  return n != 0 && factor > kUnlimited / n ? kUnlimited : factor * n;
}

}  // namespace

MemoryBudget machine_memory() {
  if (const char* given = std::getenv("SPMV_MEMORY_BYTES"); given != nullptr && *given != '\0') {
    return {parse_bytes(given), "SPMV_MEMORY_BYTES"};
  }
  static const MemoryBudget measured = measured_budget();
  return measured;
}

std::uint64_t grading_bytes(const MatrixShape& shape) {
  // Per row: row_ptr in the CSR arrays, the runners' image and the
  // empty-shape image (3 x 4), two golden results (y and the error scale
  // in fp64, the row length in int32: 2 x 20), y in two runners (2 x 4).
  // Per column: two x vectors (2 x 4), x in two runners (2 x 4). Per entry:
  // columns and values in the CSR arrays and in the image (2 x 8).
  std::uint64_t bytes = times(60, shape.rows);
  bytes = add(bytes, times(16, shape.cols));
  bytes = add(bytes, times(16, shape.entries));
  return add(bytes, 12);
}

std::string memory_problem(const MatrixShape& shape, const MemoryBudget& budget) {
  const std::uint64_t needed = grading_bytes(shape);
  if (needed <= budget.case_limit()) return {};
  return message(shape.rows, " x ", shape.cols, " with ", shape.entries, " entries needs about ", format_bytes(needed),
                 " to grade (its CSR arrays, x, y and golden results), more than the ",
                 format_bytes(budget.case_limit()), " a case may use on this machine (half of its ",
                 format_bytes(budget.machine_bytes), ", ", budget.source, ")");
}

std::string format_bytes(std::uint64_t bytes) {
  if (bytes < 1024) return message(bytes, " bytes");
  const char* units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double value = static_cast<double>(bytes) / 1024;
  std::size_t unit = 0;
  while (value >= 1024 && unit + 1 < std::size(units)) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, value < 10 ? "%.1f %s" : "%.0f %s", value, units[unit]);
  return text;
}

}  // namespace spmv
