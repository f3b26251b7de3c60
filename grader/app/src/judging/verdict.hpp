// The grader's verdict on a row, from what it recorded of the row's steps
// (row_record.hpp): how the submission's runner ended, its replies, the y it
// wrote, and the timing with the grader's checks.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "cases/case_data.hpp"
#include "judging/row_record.hpp"
#include "judging/timing_checks.hpp"
#include "model/row.hpp"

namespace spmv::grade {

struct RowContext {
  const PreparedCase& prepared;
  spmv_format format;
  double timeout_s;
  std::optional<double> copy_gbps;
  double speedup_review = 10;
  double min_reference_us = 0;  // the policy's: shorter reference launches are correctness-only
};

// Fills the outcome fields of `row` (verdict, cause, texts, measurements).
void judge_row(RowResult& row, RowRecord& record, const RowContext& context);

// Sets verdict, cause and summary ("<verdict>: <explanation>"); clears
// the detail. Also for verdicts reached without a child (not applicable,
// skipped, ...).
void set_verdict(RowResult& row, Verdict verdict, const std::string& cause, const std::string& explanation);

// The beginning of a log file from `offset` (a row's output in a runner kept
// for several rows), for reports ("" if empty or unreadable).
std::string log_excerpt(const std::filesystem::path& log_file, std::size_t max_bytes = 2000, std::uintmax_t offset = 0);

}  // namespace spmv::grade
