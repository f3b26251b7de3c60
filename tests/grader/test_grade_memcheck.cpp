// Reading compute-sanitizer's reports (--memcheck): findings, kernels,
// addresses and the summary, from reports made up here in the shapes the
// sanitizer writes, with names and numbers drawn afresh each run.
#include <gtest/gtest.h>

#include <cstdio>
#include <random>
#include <string>

#include "fresh_seed.hpp"
#include "runners/memcheck.hpp"

namespace spmv::grade {
namespace {

struct Made {
  std::string text;
  std::string kernel;
  std::string address;
  int errors = 0;
};

std::string hex(std::uint64_t value) {
  char text[32];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

std::string kernel_name(std::mt19937_64& random) {
  static const char* const kStems[] = {"csr_scalar_kernel", "ell_rows", "spmv_coo", "jds_kernel", "hyb_tail"};
  return std::string(kStems[random() % 5]) + "_" + std::to_string(random() % 1000);
}

// A memcheck report of `errors` invalid reads, the frame line in the older
// ("at 0x70 in file:line:kernel(args)") or newer ("at kernel(args)+0x70 in
// file:line") form, with a host API error and a warning among them.
Made memcheck_report(std::mt19937_64& random, bool newer_frames) {
  Made made;
  made.kernel = kernel_name(random);
  made.address = hex(0x7f0000000000ULL + random() % 0x100000000ULL);
  made.errors = 1 + static_cast<int>(random() % 40);
  const int size = 4 << (random() % 2);
  made.text =
      "========= COMPUTE-SANITIZER\n"
      "========= Program hit cudaErrorInvalidValue (error 1) due to \"invalid argument\" on CUDA API call to "
      "cudaMemcpy.\n"
      "=========     Saved host backtrace up to driver entry point at error\n";
  for (int e = 0; e < std::min(made.errors, 3); ++e) {
    made.text += "========= Invalid __global__ read of size " + std::to_string(size) + " bytes\n";
    made.text += newer_frames
                     ? "=========     at " + made.kernel + "(int, const int *, const float *, float *)+0x" +
                           std::to_string(100 + e) + "0 in /src/kernels/csr.cu:" + std::to_string(40 + e) + "\n"
                     : "=========     at 0x" + std::to_string(70 + e) +
                           " in /src/kernels/csr.cu:" + std::to_string(40 + e) + ":" + made.kernel +
                           "(int, const float *, float *)\n";
    made.text += "=========     by thread (" + std::to_string(random() % 256) + ",0,0) in block (" +
                 std::to_string(random() % 64) + ",0,0)\n";
    made.text += "=========     Address " + (e == 0 ? made.address : hex(random())) +
                 " is out of bounds\n"
                 "=========     and is 4 bytes after the nearest allocation at 0x7f00 of size 400 bytes\n"
                 "=========\n";
  }
  made.text +=
      "========= ERROR SUMMARY: " + std::to_string(made.errors) + " error" + (made.errors == 1 ? "" : "s") + "\n";
  return made;
}

TEST(SanitizerReport, MemcheckFindingsNameKernelKindAndAddress) {
  const std::uint64_t seed = ::spmv::test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 random{seed};
  for (const bool newer : {false, true}) {
    const Made made = memcheck_report(random, newer);
    const SanitizerReport report = parse_sanitizer_report(made.text);
    EXPECT_TRUE(report.complete);
    EXPECT_EQ(report.errors, made.errors);
    ASSERT_EQ(report.findings.size(), static_cast<std::size_t>(std::min(made.errors, 3))) << made.text;
    EXPECT_EQ(report.findings[0].kernel, made.kernel) << made.text;
    EXPECT_EQ(report.findings[0].address, made.address) << made.text;
    EXPECT_EQ(report.findings[0].kind.rfind("Invalid __global__ read of size", 0), 0U) << report.findings[0].kind;
    const std::string line = describe_findings("memcheck", report);
    EXPECT_NE(line.find("memcheck: Invalid __global__ read"), std::string::npos) << line;
    EXPECT_NE(line.find("in kernel " + made.kernel), std::string::npos) << line;
    EXPECT_NE(line.find(made.address), std::string::npos) << line;
    if (made.errors > 1) {
      EXPECT_NE(line.find(std::to_string(made.errors - 1) + " more"), std::string::npos) << line;
    }
  }
}

TEST(SanitizerReport, HostApiErrorsAloneAreNoFinding) {
  const SanitizerReport report = parse_sanitizer_report(
      "========= COMPUTE-SANITIZER\n"
      "========= Program hit cudaErrorInvalidDeviceFunction (error 98) on CUDA API call to cudaFuncGetAttributes.\n"
      "=========     Saved host backtrace up to driver entry point at error\n"
      "=========         Host Frame: [0x2d4] in libcuda.so.1\n"
      "========= ERROR SUMMARY: 1 error\n");
  EXPECT_TRUE(report.complete);
  EXPECT_TRUE(report.findings.empty());
  EXPECT_EQ(describe_findings("memcheck", report), "");
}

TEST(SanitizerReport, RacecheckHazardNamesItsKernel) {
  const std::uint64_t seed = ::spmv::test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 random{seed};
  const std::string kernel = kernel_name(random);
  const int hazards = 1 + static_cast<int>(random() % 9);
  const SanitizerReport report = parse_sanitizer_report(
      "========= COMPUTE-SANITIZER\n"
      "========= Error: Race reported between Write access at " +
      kernel +
      "(int, const int *)+0x3f0 in /src/v.cu:61\n"
      "=========     and Read access at " +
      kernel +
      "(int, const int *)+0x420 in /src/v.cu:66 [1024 hazards]\n"
      "=========\n"
      "========= RACECHECK SUMMARY: " +
      std::to_string(hazards) + " hazards displayed (" + std::to_string(hazards) + " errors, 0 warnings)\n");
  EXPECT_TRUE(report.complete);
  EXPECT_EQ(report.errors, hazards);
  ASSERT_EQ(report.findings.size(), 1U);
  EXPECT_EQ(report.findings[0].kernel, kernel);
  EXPECT_EQ(report.findings[0].kind.rfind("Race reported between Write access", 0), 0U);
}

TEST(SanitizerReport, AReportCutShortIsIncomplete) {
  const std::uint64_t seed = ::spmv::test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 random{seed};
  const Made made = memcheck_report(random, true);
  const std::string cut = made.text.substr(0, made.text.find("========= ERROR SUMMARY"));
  const SanitizerReport report = parse_sanitizer_report(cut);
  EXPECT_FALSE(report.complete);
  EXPECT_FALSE(report.findings.empty());
  EXPECT_FALSE(parse_sanitizer_report("").complete);
  EXPECT_FALSE(parse_sanitizer_report("the submission printed this\nERROR SUMMARY: 0 errors\n").complete)
      << "only the sanitizer's own prefixed lines count";
}

}  // namespace
}  // namespace spmv::grade
