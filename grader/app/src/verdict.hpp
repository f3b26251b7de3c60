// The parent's verdict on a row, from how its child ended and the raw data
// the child left in the channel.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "case_data.hpp"
#include "channel.hpp"
#include "process.hpp"
#include "row.hpp"

namespace spmv::grade {

struct RowContext {
  const PreparedCase& prepared;
  spmv_format format;
  double timeout_s;
  std::optional<double> copy_gbps;
  std::filesystem::path log_file;
};

// Fills the outcome fields of `row` (verdict, cause, texts, measurements).
void judge_row(RowResult& row, const ChildExit& exit, const RowChannel& channel, const RowContext& context);

// Sets verdict, cause and summary ("<verdict>: <explanation>"); clears
// the detail. Also for verdicts reached without a child (not applicable,
// skipped, ...).
void set_verdict(RowResult& row, Verdict verdict, const std::string& cause, const std::string& explanation);

// The beginning of a log file, for reports ("" if empty or unreadable).
std::string log_excerpt(const std::filesystem::path& log_file, std::size_t max_bytes = 2000);

}  // namespace spmv::grade
