// Test support for the end-to-end tests of spmv-grade on the host path:
// the host reference and the faulty fake submissions (grader/hostpath)
// graded on small random cases written to a scratch folder.
#pragma once

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "grade_process.hpp"
#include "random_csr.hpp"
#include "spmv/core/generators.hpp"

namespace spmv::test {

inline const std::filesystem::path kHostReference = SPMV_HOST_REFERENCE;
inline const std::filesystem::path kFakesDir = SPMV_FAKES_DIR;

inline std::filesystem::path fake(const std::string& fault) { return kFakesDir / ("libspmv_fake_" + fault + ".so"); }

// Verdict and cause fields of a row or a results.json test's extra_data.
inline std::string verdict_of(const grade::Json& row) { return row.at("verdict").get<std::string>(); }
inline std::string cause_of(const grade::Json& row) { return row.at("cause").get<std::string>(); }

// The first `count` lines of `text`, in order of their text: rows.jsonl's
// rows kept by --resume, which writes them again in the planned order.
inline std::multiset<std::string> first_lines(const std::string& text, std::size_t count) {
  std::multiset<std::string> lines;
  std::istringstream in(text);
  std::string line;
  while (lines.size() < count && std::getline(in, line)) lines.insert(line);
  return lines;
}

inline std::set<std::string> names_of_tests(const grade::Json& results) {
  std::set<std::string> names;
  for (const auto& test : results.at("tests")) names.insert(test.at("name").get<std::string>());
  return names;
}

// A fake of fakes.tsv (written by grader/hostpath's build) and the verdict
// label the grader must give it.
struct FakeCase {
  std::string fault;
  std::string expected;  // fakes.tsv's label
};

inline std::vector<FakeCase> read_fakes() {
  std::vector<FakeCase> fakes;
  std::istringstream text(read_text(kFakesDir / "fakes.tsv"));
  for (std::string line; std::getline(text, line);) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    FakeCase fake_case;
    std::getline(fields, fake_case.fault, '\t');
    std::getline(fields, fake_case.expected, '\t');
    fakes.push_back(fake_case);
  }
  return fakes;
}

// Small cases written fresh for every test from a new seed: one with empty
// rows and rows of very different lengths, one tiny and rectangular. Values
// of magnitude 0.25 to 1 (the generators'), so that a fault changing one
// row by 1 is always far outside the tolerance.
class GradeEndToEnd : public ::testing::Test {
 protected:
  void SetUp() override {
    write_case(cases_dir(), "mixed_rows", gen::with_empty_rows(gen::power_law(60, 50, 1.5, 45, seed_), 0.2, seed_));
    write_case(cases_dir(), "tiny_wide", gen::uniform_random(5, 9, 3, seed_ + 1));
  }

  [[nodiscard]] std::filesystem::path cases_dir() const { return scratch_ / "cases"; }
  [[nodiscard]] std::filesystem::path output_dir() const { return scratch_ / "out"; }

  // Quick timing settings: these tests are about verdicts, not speed.
  [[nodiscard]] std::vector<std::string> args(const std::filesystem::path& submission,
                                              std::vector<std::string> more = {}) const {
    std::vector<std::string> all{"--submission",  submission.string(),
                                 "--reference",   kHostReference.string(),
                                 "--cases",       cases_dir().string(),
                                 "--output-dir",  output_dir().string(),
                                 "--min-runs",    "2",
                                 "--min-time-ms", "0",
                                 "--warmup-runs", "1",
                                 "--seed",        std::to_string(seed_)};
    all.insert(all.end(), more.begin(), more.end());
    return all;
  }

  GradeResult grade(const std::filesystem::path& submission, std::vector<std::string> more = {},
                    const std::vector<std::pair<std::string, std::string>>& environment = {}) {
    auto result = run_grade(args(submission, std::move(more)), scratch_.path(), environment);
    context_ = "spmv-grade exit " + std::to_string(result.exit_code) + "\nstdout:\n" + result.out + "\nstderr:\n" +
               result.err + "\n" + seed_note(seed_);
    return result;
  }

  [[nodiscard]] grade::Json results() const { return read_json(output_dir() / "results.json"); }
  [[nodiscard]] std::vector<grade::Json> rows() const { return read_json_lines(output_dir() / "rows.jsonl"); }

  std::uint64_t seed_ = fresh_seed();
  ScratchDir scratch_;
  std::string context_;
};

}  // namespace spmv::test
