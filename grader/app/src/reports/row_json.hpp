// RowResult <-> JSON: the object of one line of rows.jsonl (and of a
// kernel's journal in a --journal folder, journal.hpp), read back by
// --aggregate.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "model/json.hpp"
#include "model/row.hpp"

namespace spmv::grade {

Json row_to_json(const RowResult& row);
// One line, no newline.
std::string row_to_json_line(const RowResult& row);
// Throws JsonError naming the missing or mistyped member.
RowResult row_from_json(const Json& object);
// Every row of a JSON-lines file; errors name the file and line.
std::vector<RowResult> read_rows_file(const std::filesystem::path& path);

}  // namespace spmv::grade
