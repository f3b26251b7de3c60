// Files replaced whole or not at all: the reports a killed grader leaves,
// the caches several graders share. The text goes into a temporary file
// beside the target, named after this process and a random number (two
// writers at once each rename a whole file of their own), which is then
// renamed over the target: a reader sees the old file or the new one, never
// part of one. A write that fails removes its temporary file.
#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <string_view>

namespace spmv {

// `write` fills the file through the stream. Throws std::runtime_error
// naming the file when it cannot be created, written or renamed; an
// exception from `write` passes through, the target left as it was.
void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::ostream&)>& write);
void write_file_atomically(const std::filesystem::path& path, std::string_view text);

}  // namespace spmv
