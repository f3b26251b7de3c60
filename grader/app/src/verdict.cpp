#include "verdict.hpp"

#include <driver_types.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "correctness.hpp"

namespace spmv::grade {
namespace {

// What a CUDA error means for the person who wrote the kernel. Only the
// error enumerators are used here: the grader process never calls CUDA.
std::string explain_cuda_error(int code) {
  switch (code) {
    case cudaErrorIllegalAddress: return "illegal memory access in the kernel";
    case cudaErrorMisalignedAddress: return "misaligned memory access in the kernel";
    case cudaErrorIllegalInstruction: return "illegal instruction in the kernel";
    case cudaErrorAssert: return "a device-side assert failed in the kernel";
    case cudaErrorLaunchFailure: return "the kernel crashed (unspecified launch failure)";
    case cudaErrorLaunchTimeout: return "the kernel ran into the device's watchdog";
    case cudaErrorHardwareStackError: return "stack overflow or corruption in the kernel";
    case cudaErrorInvalidConfiguration: return "invalid launch configuration (grid or block size)";
    case cudaErrorLaunchOutOfResources: return "too many resources (registers, shared memory) requested for the launch";
    case cudaErrorInvalidValue: return "an invalid argument to a CUDA call";
    case cudaErrorMemoryAllocation: return "out of device memory";
    default: return "a CUDA error";
  }
}

std::string format_number(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

void fail(RowResult& row, Verdict verdict, const std::string& cause, Stage stage, const std::string& what,
          const std::string& detail = {}) {
  row.stage = describe(stage);
  set_verdict(row, verdict, cause, what + " during " + row.stage);
  row.detail = detail;
}

void judge_unfinished(RowResult& row, const ChildExit& exit, Stage stage, const RowContext& context) {
  if (exit.kind == ChildExit::Kind::kTimedOut) {
    fail(row, Verdict::kTimeout, "timeout", stage,
         "killed after " + format_number("%g", context.timeout_s) + " s (the time limit)",
         "The submission did not finish: an endless loop, a deadlock, or far too slow.");
    return;
  }
  const bool submission = is_submission_stage(stage);
  if (exit.kind == ChildExit::Kind::kSignaled) {
    fail(row, submission ? Verdict::kCrash : Verdict::kGraderError, "signal", stage, describe_signal(exit.signal));
    return;
  }
  if (submission) {
    fail(row, Verdict::kCrash, "exit", stage, "the submission called exit(" + std::to_string(exit.code) + ")");
  } else {
    fail(row, Verdict::kGraderError, "exit", stage, "the grader's child exited with status " + std::to_string(exit.code));
  }
}

void add_timing(RowResult& row, const RowReport& report, const RowContext& context) {
  if (report.timed == 0 || report.submission_ms <= 0) return;
  row.submission_ms = report.submission_ms;
  row.reference_ms = report.reference_ms;
  row.submission_samples = report.submission_samples;
  row.reference_samples = report.reference_samples;
  row.speedup = report.reference_ms / report.submission_ms;
  row.gbps = static_cast<double>(row.compulsory_bytes) / (report.submission_ms * 1e6);
  if (context.copy_gbps && *context.copy_gbps > 0) row.percent_of_copy = 100 * *row.gbps / *context.copy_gbps;
}

void judge_completed(RowResult& row, const RowChannel& channel, const RowContext& context) {
  const Correctness correctness = evaluate_correctness(context.prepared, channel);
  row.max_error_ratio = correctness.max_ratio;
  row.first_bad_row = correctness.first_bad;
  row.worst_bad_row = correctness.worst_bad;
  if (!correctness.passed) {
    set_verdict(row, Verdict::kWrong, correctness.cause, correctness.summary);
    row.detail = correctness.detail;
    return;
  }
  add_timing(row, channel.report(), context);
  std::ostringstream text;
  text << "correct in all " << kRunsPerRow << " runs (largest error " << format_number("%.3g", correctness.max_ratio)
       << " of the allowed)";
  if (row.speedup) {
    text << "; " << format_number("%.2f", *row.speedup) << "x the reference (" << format_number("%.4g", *row.submission_ms)
         << " ms vs " << format_number("%.4g", *row.reference_ms) << " ms), " << format_number("%.0f", *row.gbps)
         << " GB/s";
  }
  set_verdict(row, Verdict::kPass, "", text.str());
}

void judge_finished(RowResult& row, const RowChannel& channel, const RowContext& context) {
  const RowReport& report = channel.report();
  const auto failed_stage = static_cast<Stage>(report.failed_stage);
  const bool submission = is_submission_stage(failed_stage);
  const std::string message = report.message;
  switch (report.outcome) {
    case Outcome::kCompleted: judge_completed(row, channel, context); return;
    case Outcome::kNotImplemented: set_verdict(row, Verdict::kNotImplemented, "not_implemented", message); return;
    case Outcome::kSubmissionUnusable:
      set_verdict(row, Verdict::kLoadError, "load_error", "the submission's plugin cannot be used: " + message);
      return;
    case Outcome::kLaunchFailed:
      fail(row, Verdict::kCrash, "launch_error", failed_stage, "the launch failed: " + message);
      return;
    case Outcome::kCudaError:
      if (submission) {
        fail(row, Verdict::kCrash, "cuda_error", failed_stage, explain_cuda_error(report.status), message);
      } else {
        fail(row, Verdict::kGraderError, "cuda_error", failed_stage, message);
      }
      return;
    case Outcome::kGraderFailure:
      // In a submission's stage, e.g. a scratch size too large to allocate.
      fail(row, submission ? Verdict::kCrash : Verdict::kGraderError, "exception", failed_stage, message);
      return;
    case Outcome::kNone: break;
  }
  set_verdict(row, Verdict::kGraderError, "no_result", "the child ended without a result");
}

}  // namespace

void set_verdict(RowResult& row, Verdict verdict, const std::string& cause, const std::string& explanation) {
  row.verdict = verdict;
  row.cause = cause;
  row.summary = std::string(describe(verdict)) + (explanation.empty() ? "" : ": " + explanation);
  row.detail.clear();
}

void judge_row(RowResult& row, const ChildExit& exit, const RowChannel& channel, const RowContext& context) {
  row.log_file = context.log_file.string();
  row.submission_output = log_excerpt(context.log_file);
  row.compulsory_bytes = static_cast<std::int64_t>(compulsory_bytes(context.prepared, context.format));
  const RowReport& report = channel.report();
  if (report.cusparse_timed != 0 && report.cusparse_ms > 0) row.cusparse_ms = report.cusparse_ms;
  if (!row.cusparse_ms) row.cusparse_ms = context.prepared.cusparse_ms;
  if (row.cusparse_ms) {
    row.cusparse_gbps =
        static_cast<double>(compulsory_bytes(context.prepared, SPMV_FORMAT_CSR)) / (*row.cusparse_ms * 1e6);
  }
  row.copy_gbps = context.copy_gbps;
  const Stage stage = channel.stage();
  if (exit.kind == ChildExit::Kind::kTimedOut || stage != Stage::kDone) {
    judge_unfinished(row, exit, stage, context);
  } else {
    judge_finished(row, channel, context);
  }
}

std::string log_excerpt(const std::filesystem::path& log_file, std::size_t max_bytes) {
  std::ifstream file(log_file, std::ios::binary);
  if (!file) return {};
  std::string text(max_bytes, '\0');
  file.read(text.data(), static_cast<std::streamsize>(max_bytes));
  text.resize(static_cast<std::size_t>(file.gcount()));
  std::error_code error;
  const auto size = std::filesystem::file_size(log_file, error);
  if (!error && size > text.size()) {
    text += "\n... (" + std::to_string(size - text.size()) + " more bytes in " + log_file.string() + ")";
  }
  return text;
}

}  // namespace spmv::grade
