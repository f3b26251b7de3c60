#include "judging/verdict.hpp"

#include <driver_types.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "judging/correctness.hpp"
#include "runners/process.hpp"

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

// The row ended early: the runner died, hung, or refused a step.
void judge_unfinished(RowResult& row, const RowRecord& record, const RowContext& context) {
  const Stage stage = record.stage;
  if (!record.grader_failure.empty()) {
    fail(row, Verdict::kGraderError, "grader", stage, record.grader_failure);
    return;
  }
  const bool submission = is_submission_stage(stage);
  if (record.refused) {
    const std::string& message = record.message;
    switch (*record.refused) {
      case runner::ReplyKind::kNotImplemented:
        set_verdict(row, Verdict::kNotImplemented, "not_implemented", message);
        return;
      case runner::ReplyKind::kUnusable:
        set_verdict(row, Verdict::kLoadError, "load_error", "the submission's plugin cannot be used: " + message);
        return;
      case runner::ReplyKind::kLaunchFailed:
        fail(row, Verdict::kCrash, "launch_error", stage, "the launch " + message);
        return;
      case runner::ReplyKind::kNotCapturable:
        fail(row, Verdict::kCrash, "not_capturable", stage, message,
             "The kernel is timed by replaying its launch call from a CUDA graph, captured once: a launch may only "
             "enqueue work on the stream it is given (no synchronization, allocation, copy to the host, or work "
             "on the default stream); docs/student-guide.md, \"How you are timed\".");
        return;
      case runner::ReplyKind::kCudaError:
        fail(row, submission ? Verdict::kCrash : Verdict::kGraderError, "cuda_error", stage,
             submission ? explain_cuda_error(record.status) : message, submission ? message : "");
        return;
      case runner::ReplyKind::kFailed:
      case runner::ReplyKind::kOk:
        fail(row, submission ? Verdict::kCrash : Verdict::kGraderError, "exception", stage, message);
        return;
    }
  }
  switch (record.end.kind) {
    case RunnerEnd::Kind::kTimedOut:
      fail(row, Verdict::kTimeout, "timeout", stage,
           "killed after " + format_number("%g", context.timeout_s) + " s (the time limit)",
           "The submission did not finish: an endless loop, a deadlock, or far too slow.");
      return;
    case RunnerEnd::Kind::kSignaled:
      fail(row, submission ? Verdict::kCrash : Verdict::kGraderError, "signal", stage,
           describe_signal(record.end.signal));
      return;
    case RunnerEnd::Kind::kExited:
      if (submission) {
        fail(row, Verdict::kCrash, "exit", stage,
             "the submission called exit(" + std::to_string(record.end.code) + ")");
      } else {
        fail(row, Verdict::kGraderError, "exit", stage,
             "the runner exited with status " + std::to_string(record.end.code));
      }
      return;
    case RunnerEnd::Kind::kKilled:
    case RunnerEnd::Kind::kRunning: break;
  }
  if (submission) {
    fail(row, Verdict::kCrash, "exception", stage,
         "the submission's runner stopped answering (a malformed reply or a closed channel)");
  } else {
    set_verdict(row, Verdict::kGraderError, "no_result", "the runner ended without a result");
  }
}

void add_timing(RowResult& row, TimingRecord& timing, const RowContext& context) {
  if (!timing.timed) return;
  row.timing_parts_ms = timing.parts_ms;
  row.timing_bursts_ms = timing.bursts_ms;
  row.burst_links = timing.links;
  row.checked_launches = timing.checked_launches;
  const std::string under =
      ", under the policy's timing.min_reference_us of " + format_number("%g", context.min_reference_us) + " us";
  if (const auto pilot = timing.parts_ms.find("reference_pilot_link"); pilot != timing.parts_ms.end()) {
    row.correctness_only = "the reference's launch takes less than " + format_number("%.3g", pilot->second * 1000) +
                           " us (a link of its pilot bursts, the runner's own kernels included)" + under +
                           ": too short to rank by speed";
  }
  if (timing.submission_ms <= 0 || timing.reference_ms <= 0) {
    // Bursts no longer than their calibration: a launch too short for the
    // grader's clock to see.
    if (row.correctness_only.empty()) {
      row.correctness_only = "the launches took no time the grader's clock could tell from the runner's own cost";
    }
  } else {
    row.submission_ms = timing.submission_ms;
    row.reference_ms = timing.reference_ms;
    row.submission_samples = timing.submission_samples;
    row.reference_samples = timing.reference_samples;
    row.speedup = timing.reference_ms / timing.submission_ms;
    if (row.correctness_only.empty() && (timing.short_row || timing.reference_ms * 1000 < context.min_reference_us)) {
      row.correctness_only = "the reference's launch takes " + format_number("%.3g", timing.reference_ms * 1000) +
                             " us" + under + ": too short to rank by speed";
    }
    row.gbps = static_cast<double>(row.compulsory_bytes) / (timing.submission_ms * 1e6);
    if (context.copy_gbps && *context.copy_gbps > 0) row.percent_of_copy = 100 * *row.gbps / *context.copy_gbps;
  }
  // A correctness-only row's times are too short to mean anything (the
  // policy's own measure), so its speed raises no flag (on the H100 an
  // honest short row came out at 11x, was flagged, and lost the speed
  // points the policy gives it); its runner's forged timers still do.
  apply_timing_checks(timing, {.compulsory_bytes = static_cast<std::uint64_t>(row.compulsory_bytes),
                               .copy_gbps = context.copy_gbps,
                               .speedup_review = context.speedup_review,
                               .speed_checks = row.correctness_only.empty()});
  for (const auto& flag : timing.flags) row.flags.push_back(flag);
  row.bound_use = timing.bound_use;
  for (const auto& reason : timing.flag_reasons) row.detail += (row.detail.empty() ? "" : "\n") + reason;
}

void judge_completed(RowResult& row, RowRecord& record, const RowContext& context) {
  // Runs judged correct already need no second look, unless a later run
  // (the kernel's timing runner's) changed an input.
  const Correctness correctness = [&] {
    if (!record.runs_correct_max_ratio || !record.modified_inputs.empty()) {
      return evaluate_correctness(context.prepared, *record.results, record.modified_inputs, record.runs);
    }
    Correctness checked;
    checked.passed = true;
    checked.max_ratio = *record.runs_correct_max_ratio;
    return checked;
  }();
  row.max_error_ratio = correctness.max_ratio;
  row.first_bad_row = correctness.first_bad;
  row.worst_bad_row = correctness.worst_bad;
  if (!correctness.passed) {
    set_verdict(row, Verdict::kWrong, correctness.cause, correctness.summary);
    row.detail = correctness.detail;
    return;
  }
  std::ostringstream text;
  text << "correct in all " << record.runs << " runs (largest error " << format_number("%.3g", correctness.max_ratio)
       << " of the allowed)";
  set_verdict(row, Verdict::kPass, "", "");
  add_timing(row, record.timing, context);
  if (row.speedup && row.correctness_only.empty()) {
    text << "; " << format_number("%.2f", *row.speedup) << "x the reference ("
         << format_number("%.4g", *row.submission_ms) << " ms vs " << format_number("%.4g", *row.reference_ms)
         << " ms), " << format_number("%.0f", *row.gbps) << " GB/s";
  } else if (row.speedup) {
    // A speedup that scores nothing is said apart, in brackets, never
    // looking like one that does.
    text << "; (" << format_number("%.2f", *row.speedup)
         << "x the reference: " << format_number("%.4g", *row.submission_ms) << " ms vs "
         << format_number("%.4g", *row.reference_ms) << " ms, not scored)";
  }
  if (!row.correctness_only.empty()) text << "; correctness only (" << row.correctness_only << ")";
  if (!row.flags.empty()) text << "; flagged for review";
  const std::string detail = row.detail;
  set_verdict(row, Verdict::kPass, "", text.str());
  row.detail = detail;
}

}  // namespace

void set_verdict(RowResult& row, Verdict verdict, const std::string& cause, const std::string& explanation) {
  row.verdict = verdict;
  row.cause = cause;
  row.summary = std::string(describe(verdict)) + (explanation.empty() ? "" : ": " + explanation);
  row.detail.clear();
}

void judge_row(RowResult& row, RowRecord& record, const RowContext& context) {
  row.log_file = record.log_file.string();
  row.phase_ms = record.phase_ms;
  row.submission_output = log_excerpt(record.log_file, 2000, record.log_offset);
  row.compulsory_bytes = static_cast<std::int64_t>(compulsory_bytes(context.prepared, context.format));
  if (record.cusparse_ms) row.cusparse_ms = record.cusparse_ms;
  if (!row.cusparse_ms) row.cusparse_ms = context.prepared.cusparse_ms;
  if (row.cusparse_ms) {
    row.cusparse_gbps =
        static_cast<double>(compulsory_bytes(context.prepared, SPMV_FORMAT_CSR)) / (*row.cusparse_ms * 1e6);
  }
  row.copy_gbps = context.copy_gbps;
  if (!record.foreign_kernel.empty()) {
    // The submission ran a kernel it does not hold: a vendor library's, or
    // one loaded or compiled at run time. Detected inside its own process
    // (CUPTI), so evidence for review rather than proof (docs/grading.md).
    row.stage = describe(record.stage);
    set_verdict(row, Verdict::kForbiddenLibrary, "forbidden_library",
                "a kernel the submission does not hold ran: " + record.foreign_kernel);
    row.detail =
        "Kernels of cuSPARSE, cuBLAS or cuSOLVER, or of a module loaded or compiled at run time, are not the "
        "submission's own work.";
    row.flags.push_back("forbidden_library");
    return;
  }
  if (!record.timing.wrong_timed_launch.empty()) {
    // A cheat, not a slip: the result of a launch that was timed was wrong.
    row.stage = describe(Stage::kTiming);
    set_verdict(row, Verdict::kWrong, "timed_result_wrong",
                "a timed launch returned a wrong result: " + record.timing.wrong_timed_launch);
    row.detail =
        "The three checked runs were correct, but a launch among the timed ones (checked at random, with an x "
        "it had never seen) was not: the kernel does not compute y = A x on every call.";
    row.flags.push_back("timed_result_wrong");
    return;
  }
  if (record.completed) {
    judge_completed(row, record, context);
  } else {
    judge_unfinished(row, record, context);
  }
}

std::string log_excerpt(const std::filesystem::path& log_file, std::size_t max_bytes, std::uintmax_t offset) {
  std::ifstream file(log_file, std::ios::binary);
  if (!file) return {};
  file.seekg(static_cast<std::streamoff>(offset));
  if (!file) return {};
  std::string text(max_bytes, '\0');
  file.read(text.data(), static_cast<std::streamsize>(max_bytes));
  text.resize(static_cast<std::size_t>(file.gcount()));
  std::error_code error;
  const auto size = std::filesystem::file_size(log_file, error);
  if (!error && size > offset + text.size()) {
    text += "\n... (" + std::to_string(size - offset - text.size()) + " more bytes in the row's log, " +
            log_file.filename().string() + ")";
  }
  return text;
}

}  // namespace spmv::grade
