// Whether a matrix can be graded on this machine, decided from its shape
// alone (a Matrix Market size line, a generator spec) before anything of
// that size is allocated: a typo such as "2000000000 2000000000 3" must be an
// error naming the size line, not gigabytes allocated or a bare
// std::bad_alloc minutes later.
//
// What a case needs is the memory the grader holds for it at once (its CSR
// arrays and the runners' image of them, two x vectors, two golden results
// with their error scales and row lengths, the runners' x and y); a case may
// use half of what this machine can give, since the grader prepares the next
// cases while one is graded. What the machine can give is the least of its
// physical memory, the memory limit of its cgroup (a container) and the
// process's RLIMIT_AS and RLIMIT_DATA; the environment variable
// SPMV_MEMORY_BYTES (a number of bytes, or with a K, M, G or T suffix,
// binary) replaces it, for a machine shared with other work or for tests.
#pragma once

#include <cstdint>
#include <string>

namespace spmv {

struct MatrixShape {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t entries = 0;  // stored entries, mirrored ones included
};

// What this machine can give, and where the figure comes from
// ("physical memory", "cgroup memory.max", "RLIMIT_AS", "SPMV_MEMORY_BYTES", ...).
struct MemoryBudget {
  std::uint64_t machine_bytes = 0;
  std::string source;
  // The most one case may need: half of machine_bytes.
  [[nodiscard]] std::uint64_t case_limit() const { return machine_bytes / 2; }
};

// Read once per process (the environment variable each time). A malformed
// SPMV_MEMORY_BYTES throws std::invalid_argument naming it.
MemoryBudget machine_memory();

// Bytes the grader holds at once to grade a case of this shape.
std::uint64_t grading_bytes(const MatrixShape& shape);

// Empty when a case of this shape fits `budget`; else one sentence saying
// how much it needs and how much a case may use here (no file name: the
// caller names the file and line).
std::string memory_problem(const MatrixShape& shape, const MemoryBudget& budget);

// "1.5 GiB", "512 MiB", "12 KiB", "100 bytes".
std::string format_bytes(std::uint64_t bytes);

}  // namespace spmv
