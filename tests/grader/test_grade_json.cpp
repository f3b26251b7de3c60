// The grader's JSON (nlohmann-json with the grader's rules on top), and
// rows, results and run facts written and read back.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "model/json.hpp"
#include "model/provenance.hpp"
#include "random_csr.hpp"
#include "reports/journal.hpp"
#include "reports/report.hpp"
#include "reports/row_json.hpp"
#include "scoring/policy.hpp"

namespace spmv::grade {
namespace {

// The two layouts of the grader's files: results.json and the run facts
// pretty-printed with two spaces, rows.jsonl one object per line.
TEST(JsonText, PrettyAndCompactLayouts) {
  Json doc = Json::object();
  doc["name"] = "csr / a";
  doc["count"] = 3;
  doc["ratio"] = json_number(0.125);
  doc["ok"] = true;
  doc["nothing"] = nullptr;
  doc["list"] = Json::array({1, Json::object(), Json::array()});
  EXPECT_EQ(json_text(doc, 0),
            R"({"name":"csr / a","count":3,"ratio":0.125,"ok":true,"nothing":null,"list":[1,{},[]]})");
  EXPECT_EQ(json_text(doc),
            "{\n"
            "  \"name\": \"csr / a\",\n"
            "  \"count\": 3,\n"
            "  \"ratio\": 0.125,\n"
            "  \"ok\": true,\n"
            "  \"nothing\": null,\n"
            "  \"list\": [\n"
            "    1,\n"
            "    {},\n"
            "    []\n"
            "  ]\n"
            "}");
  for (const int indent : {0, 2}) {
    const Json back = parse_json(json_text(doc, indent));
    EXPECT_EQ(back, doc);
    EXPECT_EQ(back.begin().key(), "name") << "members keep their order";
  }
}

TEST(JsonText, EscapesAnyBytesIntoValidJson) {
  std::string nasty = "quote\" backslash\\ newline\n tab\t bell\a del\x7f nul";
  nasty.push_back('\0');
  nasty += " utf8 \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80";
  const std::string invalid = "\xFF lone continuation \x80 overlong \xC0\xAF surrogate \xED\xA0\x80 cut \xE2\x82";
  const std::string text = json_text(Json::array({nasty, invalid}), 0);
  const Json doc = parse_json(text);
  EXPECT_EQ(json_as_string(doc[0]), nasty) << "valid text survives byte for byte";
  EXPECT_NE(text.find(R"(quote\" backslash\\ newline\n tab\t bell\u0007 del)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"( nul\u0000 utf8 )"), std::string::npos) << "control characters as \\u, lower-case hex";
  EXPECT_NE(text.find("del\x7f"), std::string::npos) << "DEL is valid JSON as it is";
  const std::string repaired = json_as_string(doc[1]);
  EXPECT_NE(repaired.find("\xEF\xBF\xBD lone continuation \xEF\xBF\xBD"), std::string::npos) << repaired;
  EXPECT_EQ(repaired.find('\xFF'), std::string::npos);
  EXPECT_EQ(repaired.find("\xED\xA0\x80"), std::string::npos);
  // A sequence cut short is one U+FFFD (Unicode's "maximal subpart").
  EXPECT_EQ(repaired.substr(repaired.rfind("cut")), "cut \xEF\xBF\xBD");
}

TEST(JsonNumber, RoundTripsExactlyAndNonFiniteIsNull) {
  const std::uint64_t seed = test::fresh_seed();
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> mantissa(-1, 1);
  std::uniform_int_distribution<int> exponent(-300, 300);
  Json out = Json::array();
  std::vector<double> values;
  for (int i = 0; i < 200; ++i) {
    values.push_back(std::ldexp(mantissa(rng), exponent(rng)));
    // Whole numbers too: they are written as integers.
    if (i % 4 == 0) values.back() = std::round(values.back() * 1e6);
    out.push_back(json_number(values.back()));
  }
  out.push_back(json_number(std::numeric_limits<double>::infinity()));
  out.push_back(json_number(std::nan("")));
  out.push_back(json_number(std::optional<double>()));
  const Json doc = parse_json(json_text(out, 0));
  for (std::size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(json_as_number(doc[i]), values[i]) << test::seed_note(seed);
  }
  for (std::size_t i = values.size(); i < values.size() + 3; ++i) EXPECT_TRUE(doc[i].is_null());
}

// How a double reads in the grader's files: text that reads back to the
// same double (the shortest, but for a few that need 17 digits), a whole
// number as an integer.
TEST(JsonNumber, Text) {
  const std::pair<double, const char*> expected[] = {
      {100, "100"},
      {-3, "-3"},
      {0, "0"},
      {12.5, "12.5"},
      {0.125, "0.125"},
      {1.0 / 3, "0.3333333333333333"},
      {1e-07, "1e-07"},
      {2.5e20, "2.5e+20"},
      {123456789, "123456789"},
      {0.0015, "0.0015"},
      {9007199254740992.0, "9007199254740992"},
      // Written before the grader's JSON was nlohmann's as -0, 1e+05, 1e-04
      // and 769.3049926757812 (std::to_chars's text of the same doubles:
      // where 17 digits are needed, the library may end on the other digit).
      {-0.0, "-0.0"},
      {100000, "100000"},
      {0.0001, "0.0001"},
      {769.3049926757812, "769.3049926757813"}};
  for (const auto& [value, text] : expected) EXPECT_EQ(json_text(json_number(value), 0), text) << value;
}

TEST(JsonRead, TypedReadsRefuseOtherTypes) {
  const Json doc = parse_json(R"({"flag": true, "number": 1.5, "text": "1"})");
  EXPECT_EQ(json_as_number(json_member(doc, "number")), 1.5);
  EXPECT_THROW((void)json_as_number(json_member(doc, "flag")), JsonError) << "a boolean is not a number";
  EXPECT_THROW((void)json_as_number(json_member(doc, "text")), JsonError);
  EXPECT_THROW((void)json_as_string(json_member(doc, "number")), JsonError);
  EXPECT_THROW((void)json_as_bool(json_member(doc, "number")), JsonError);
  try {
    (void)json_member(doc, "absent");
    FAIL() << "found";
  } catch (const JsonError& e) {
    EXPECT_NE(std::string(e.what()).find("\"absent\""), std::string::npos) << e.what();
  }
}

TEST(JsonParser, ReadsEscapesAndSurrogatePairs) {
  const Json doc = parse_json(R"( {"a": "x\u00e9\ud83d\ude00\/\b\f\n\r\t\"\\", "b": [ -0, 1e2, -2.5E-3 ]} )");
  EXPECT_EQ(json_as_string(doc.at("a")), "x\xC3\xA9\xF0\x9F\x98\x80/\b\f\n\r\t\"\\");
  EXPECT_EQ(json_as_number(doc.at("b")[1]), 100);
  EXPECT_EQ(json_as_number(doc.at("b")[2]), -0.0025);
}

TEST(JsonParser, RejectsWhatRfc8259Rejects) {
  for (const std::string bad : {"",      "{",         "[1,]", "{\"a\":1,}", "{'a':1}",     "[01]",        "[1.]",
                                "[-]",   "[.5]",      "[1e]", "\"\\x\"",    "\"\\ud800\"", "\"\\udc00\"", "\"a\nb\"",
                                "[1] x", "{\"a\" 1}", "tru",  "nul",        "[1e999]",     "\"\xFF\""}) {
    EXPECT_THROW(parse_json(bad), JsonError) << "accepted: " << bad;
  }
}

// The parser and the values it makes keep no recursion on the stack:
// nesting deeper than any report does not exhaust it.
TEST(JsonParser, DeepNestingIsNoDanger) {
  constexpr std::size_t kDepth = 100000;
  const Json doc = parse_json(std::string(kDepth, '[') + std::string(kDepth, ']'));
  std::size_t depth = 1;
  for (const Json* level = &doc; !level->empty(); level = &(*level)[0]) ++depth;
  EXPECT_EQ(depth, kDepth);
}

TEST(JsonParser, ErrorsNameTheOffset) {
  try {
    parse_json("[1, 2, x]");
    FAIL() << "accepted";
  } catch (const JsonError& e) {
    EXPECT_NE(std::string(e.what()).find("offset 7"), std::string::npos) << e.what();
  }
}

TEST(RowJson, EveryFieldSurvivesAWriteAndARead) {
  const std::uint64_t seed = test::fresh_seed();
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> real(-1e6, 1e6);
  RowResult row;
  row.kernel = "csr_vector";
  row.format = "csr";
  row.kernel_order = 2;
  row.case_name = "power \"law\"";
  row.case_order = 7;
  row.case_source = "/cases";
  row.case_weight = real(rng);
  row.visibility = "after_due_date";
  row.tags = {"big", "irregular"};
  row.rows = 123456;
  row.cols = 654321;
  row.nnz = 99999999;
  row.verdict = Verdict::kWrong;
  row.cause = "missing_term";
  row.summary = "wrong: row 3";
  row.detail = "line 1\nline 2";
  row.stage = "run 1 (first x)";
  row.max_error_ratio = std::numeric_limits<double>::infinity();
  row.first_bad_row = RowSample{3, real(rng), real(rng), real(rng)};
  row.submission_ms = real(rng);
  row.speedup = real(rng);
  row.x_seed = rng();  // beyond 2^53: must survive as text
  row.submission_output = std::string("out\x01put");
  row.checked_launches = 5;
  row.flags = {"implausible_timing", "speedup_review"};
  row.accepted_flags = {"speedup_review"};
  row.bound_use = {{"clock", real(rng)}, {"floor", 0.25}};
  row.phase_ms = {{"timing", real(rng)}, {"end", real(rng)}};
  row.timing_parts_ms = {{"submission_event", real(rng)}, {"reference_span", real(rng)}};
  row.timing_bursts_ms = {{"submission", {real(rng), real(rng), real(rng)}}, {"calibration", {}}};
  row.burst_links = static_cast<int>(rng() % 500) + 1;
  const RowResult back = row_from_json(parse_json(row_to_json_line(row)));
  EXPECT_EQ(back.kernel, row.kernel);
  EXPECT_EQ(back.case_name, row.case_name);
  EXPECT_EQ(back.case_weight, row.case_weight) << test::seed_note(seed);
  EXPECT_EQ(back.tags, row.tags);
  EXPECT_EQ(back.nnz, row.nnz);
  EXPECT_EQ(back.verdict, row.verdict);
  EXPECT_EQ(back.detail, row.detail);
  EXPECT_TRUE(back.max_error_ratio && std::isinf(*back.max_error_ratio));
  ASSERT_TRUE(back.first_bad_row);
  EXPECT_EQ(back.first_bad_row->got, row.first_bad_row->got);
  EXPECT_FALSE(back.worst_bad_row);
  EXPECT_EQ(back.submission_ms, row.submission_ms);
  EXPECT_FALSE(back.reference_ms);
  EXPECT_EQ(back.x_seed, row.x_seed) << test::seed_note(seed);
  EXPECT_EQ(back.submission_output, row.submission_output);
  EXPECT_EQ(back.checked_launches, row.checked_launches);
  EXPECT_EQ(back.flags, row.flags);
  EXPECT_EQ(back.accepted_flags, row.accepted_flags);
  EXPECT_EQ(back.bound_use, row.bound_use);
  EXPECT_EQ(back.phase_ms, row.phase_ms);
  EXPECT_EQ(back.timing_parts_ms, row.timing_parts_ms);
  EXPECT_EQ(back.timing_bursts_ms, row.timing_bursts_ms);
  EXPECT_EQ(back.burst_links, row.burst_links);
}

// What results.json lets students see: a test not visible now carries its
// verdict and flags only; a visible one quotes the submission's output
// capped and with non-printable bytes replaced; no path of the grading
// machine anywhere.
TEST(ResultsJson, HiddenTestsCarryNoOutputAndVisibleOutputIsCappedAndPrintable) {
  std::mt19937_64 rng(test::fresh_seed());
  const std::string marker = "marker-" + std::to_string(rng());
  std::vector<RowResult> rows(2);
  for (auto& row : rows) {
    row.kernel = "coo";
    row.format = "coo";
    row.verdict = Verdict::kWrong;
    row.cause = "missing_term";
    row.summary = "wrong: row 17 expected 1.5 " + marker;
    row.detail = "detail " + marker;
    row.case_why = "why " + marker;
    row.rows = row.cols = row.nnz = 4242;
    row.submission_output = marker + std::string(kVisibleOutputBytes * 3, 'A') + "\x1b[31m";
    row.flags = {"implausible_timing"};
  }
  rows[0].case_name = "public_case";
  rows[1].case_name = "hidden_case";
  rows[1].visibility = "after_due_date";
  RunInfo info;
  info.submission = "/srv/grading/secret-folder/libspmv_x.so";
  info.reference = "/srv/grading/secret-folder/libspmv_reference.so";
  info.submission_name = "student";
  info.provenance = {{"submission", "sha256:" + sha256_hex("x")}};
  const Json report = parse_json(gradescope_json(default_policy(), rows, info));
  const std::string text = gradescope_json(default_policy(), rows, info);
  EXPECT_EQ(text.find("/srv/grading"), std::string::npos) << "a path of the grading machine";
  const auto& tests = report.at("tests");
  ASSERT_EQ(tests.size(), 2U);
  for (const auto& test : tests) {
    const std::string output = json_as_string(test.at("output"));
    const bool hidden = test.at("name") == "coo / hidden_case";
    EXPECT_EQ(test.at("extra_data").at("flags").size(), 1U);
    if (hidden) {
      EXPECT_EQ(output.find(marker), std::string::npos) << output;
      EXPECT_FALSE(test.at("extra_data").contains("nnz"));
      EXPECT_EQ(test.at("extra_data").at("verdict"), "wrong");
    } else {
      EXPECT_NE(output.find(marker), std::string::npos);
      EXPECT_LT(output.size(), kVisibleOutputBytes + 1024) << "capped";
      EXPECT_NE(output.find("cut"), std::string::npos) << "the cut is marked";
      EXPECT_EQ(output.find('\x1b'), std::string::npos) << "a terminal escape reached a student";
    }
  }
  EXPECT_EQ(report.at("extra_data").at("provenance").at("submission"), "sha256:" + sha256_hex("x"));
}

// What a student reads on the console and in summary.md: a
// correctness-only row's progress line is marked in a short form, its
// reason said once after the table; its speedup in brackets in both tables,
// a scored row's plain.
TEST(StudentReports, CorrectnessOnlyRowsAreMarkedAndTheirReasonSaidOnce) {
  std::mt19937_64 rng(test::fresh_seed());
  const std::string reason = "the reference's launch takes less than 1" + std::to_string(rng() % 9) +
                             ".5 us, under the policy's timing.min_reference_us of 20 us: too short to rank by speed";
  std::vector<RowResult> rows(3);
  // Speedups a quarter apart: no two print alike; off the thousandths, so
  // that no draw sits on a tie of %.2f's rounding (the kernel's geometric
  // mean of one row, exp(log(x)), may differ from x in its last bit).
  const double base = 0.5003 + static_cast<double>(rng() % 250) / 1000.0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    RowResult& row = rows[i];
    row.kernel = "csr_scalar";
    row.format = "csr";
    row.case_name = "case_" + std::to_string(i);
    row.case_order = static_cast<int>(i);
    row.verdict = Verdict::kPass;
    row.speedup = base + 0.25 * static_cast<double>(i);
    row.submission_ms = 0.01;
    row.reference_ms = 0.01 * *row.speedup;
    row.summary = "pass: correct in all 3 runs (largest error 0.1 of the allowed)";
  }
  for (std::size_t i = 0; i < 2; ++i) {
    rows[i].correctness_only = reason;
    rows[i].summary += "; correctness only (" + reason + ")";
  }
  rows[2].gbps = 100.0 + static_cast<double>(rng() % 900);
  rows[2].percent_of_copy = 10.0 + static_cast<double>(rng() % 80);
  char scored[32];
  std::snprintf(scored, sizeof scored, "%.2fx", *rows[2].speedup);
  // The kernel's summary: its one scored row is the slowest, with its GB/s
  // and share of a copy.
  const std::vector<std::string> summaries = kernel_summaries(rows, RunInfo{});
  ASSERT_EQ(summaries.size(), 1U);
  char slowest[160];
  std::snprintf(slowest, sizeof slowest,
                "1 row scored by speed, geometric mean %s; slowest case_2 at %s, %.0f GB/s (%.0f%% of", scored, scored,
                *rows[2].gbps, *rows[2].percent_of_copy);
  EXPECT_NE(summaries[0].find(slowest), std::string::npos) << summaries[0];
  EXPECT_EQ(summaries[0].find("Grade it again"), std::string::npos) << "a command without the run's";
  const ScoreSummary scores = score_rows(default_policy(), rows);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string line = progress_line(rows[i], i + 1, rows.size(), &scores.rows[i]);
    char points[64];
    std::snprintf(points, sizeof points, " (%.2f/%.2f): pass", scores.rows[i].score, scores.rows[i].max_score);
    EXPECT_NE(line.find(rows[i].case_name + points), std::string::npos) << "the row's points not on its line: " << line;
    EXPECT_EQ(line.find(reason), std::string::npos) << "the reason repeated on each line: " << line;
    EXPECT_EQ(line.find("correctness only (*)") != std::string::npos, i < 2) << line;
  }
  RunInfo info;
  const std::string console = console_report(default_policy(), rows, info);
  std::size_t said = 0;
  for (auto at = console.find(reason); at != std::string::npos; at = console.find(reason, at + 1)) ++said;
  EXPECT_EQ(said, 1U) << console;
  EXPECT_NE(console.find("(*) 2 rows are correctness only"), std::string::npos) << console;
  const std::string markdown = markdown_summary(default_policy(), rows, info);
  for (const std::string& text : {console, markdown}) {
    for (std::size_t i = 0; i < 2; ++i) {
      char unscored[32];
      std::snprintf(unscored, sizeof unscored, "(%.2fx)", *rows[i].speedup);
      EXPECT_NE(text.find(unscored), std::string::npos) << "an unscored speedup not in brackets:\n" << text;
    }
    EXPECT_NE(text.find(std::string(" ") + scored), std::string::npos) << text;
    EXPECT_EQ(text.find(std::string("(") + scored + ")"), std::string::npos) << "a scored speedup in brackets";
  }
}

// The run beside a kernel's journal (journal.hpp): every member survives a
// write and a read, the full 64-bit seed included.
TEST(RunInfoJson, EveryMemberSurvivesAWriteAndARead) {
  std::mt19937_64 random(spmv::test::fresh_seed());
  RunInfo info;
  info.submission = "/s/libspmv_x.so";
  info.submission_name = "x \"quoted\"";
  info.reference = "/r/libspmv_reference.so";
  info.device = "NVIDIA H100 80GB HBM3";
  info.copy_gbps = std::uniform_real_distribution<double>(100, 4000)(random);
  info.seed = random() | (std::uint64_t{1} << 63);
  info.isolation = "full";
  info.isolation_detail = "namespaces, seccomp, landlock";
  info.unisolated = false;
  info.elapsed_s = 12.5;
  info.notes = {"first note", "second note"};
  info.provenance = {{"submission", "sha256:ab"}, {"case a", "sha256:cd"}};
  const auto path = std::filesystem::temp_directory_path() /
                    ("spmv-run-info-" + std::to_string(::getpid()) + "-" + std::to_string(random()) + ".json");
  const std::string id = new_run_id();
  EXPECT_NE(id, new_run_id());
  write_run_info(path, {id, info});
  const JournalRun read = read_run_info(path);
  std::filesystem::remove(path);
  EXPECT_EQ(read.id, id);
  const RunInfo& back = read.info;
  EXPECT_EQ(back.submission, info.submission);
  EXPECT_EQ(back.submission_name, info.submission_name);
  EXPECT_EQ(back.reference, info.reference);
  EXPECT_EQ(back.device, info.device);
  EXPECT_EQ(back.copy_gbps, info.copy_gbps);
  EXPECT_EQ(back.seed, info.seed);
  EXPECT_EQ(back.secret_seed, info.secret_seed);
  EXPECT_EQ(back.isolation, info.isolation);
  EXPECT_EQ(back.isolation_detail, info.isolation_detail);
  EXPECT_EQ(back.unisolated, info.unisolated);
  EXPECT_EQ(back.elapsed_s, info.elapsed_s);
  EXPECT_EQ(back.notes, info.notes);
  EXPECT_EQ(back.provenance, info.provenance);
}

// Several runs of one CTest grading make one report: the weakest isolation
// wins, so a report never claims more containment than a run had.
TEST(RunInfoJson, MergedRunsKeepTheWeakestIsolationAndEveryNote) {
  RunInfo full;
  full.isolation = "full";
  full.isolation_detail = "everything";
  full.seed = 7;
  full.device = "GPU A";
  full.elapsed_s = 10;
  full.notes = {"shared note", "full's note"};
  full.provenance = {{"submission", "sha256:1"}, {"gpu", "GPU A"}};
  RunInfo user = full;
  user.isolation = "user";
  user.isolation_detail = "an ordinary user's sandbox";
  user.unisolated = true;
  user.device = "GPU B";
  user.elapsed_s = 5;
  user.notes = {"shared note", "user's note"};
  user.provenance = {{"submission", "sha256:1"}, {"gpu", "GPU B"}};

  // One run's facts are beside each of its kernels' journals: it counts once.
  const JournalRun full_run{"run-full", full};
  const JournalRun user_run{"run-user", user};
  for (const auto& runs :
       {std::vector<JournalRun>{full_run, user_run, full_run}, std::vector<JournalRun>{user_run, full_run, user_run}}) {
    const RunInfo merged = merge_run_infos(runs);
    EXPECT_EQ(merged.isolation, "user");
    EXPECT_EQ(merged.isolation_detail, "an ordinary user's sandbox");
    EXPECT_TRUE(merged.unisolated);
    EXPECT_EQ(merged.seed, std::optional<std::uint64_t>(7));
    EXPECT_EQ(merged.elapsed_s, 15);
    EXPECT_EQ(merged.notes.size(), 3U);
    EXPECT_EQ(std::count(merged.notes.begin(), merged.notes.end(), "shared note"), 1);
    EXPECT_EQ(merged.provenance.size(), 3U) << "submission once, both GPUs";
    EXPECT_NE(merged.device.find("GPU A"), std::string::npos);
    EXPECT_NE(merged.device.find("GPU B"), std::string::npos);
  }

  RunInfo other_seed = full;
  other_seed.seed = 8;
  const RunInfo differing = merge_run_infos({full_run, {"run-other", other_seed}});
  EXPECT_FALSE(differing.seed.has_value());
  EXPECT_NE(std::find(differing.notes.begin(), differing.notes.end(), "The runs of this grading used different seeds."),
            differing.notes.end());
  RunInfo secret = full;
  secret.seed.reset();
  secret.secret_seed = true;
  const RunInfo with_secret = merge_run_infos({full_run, {"run-secret", secret}});
  EXPECT_TRUE(with_secret.secret_seed);
  EXPECT_FALSE(with_secret.seed.has_value()) << "a secret seed's run makes the grading's seed secret";
}

TEST(Provenance, Sha256OfKnownInputs) {
  // FIPS 180-2's examples: "abc" and the 448-bit message.
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

// Digests begun ahead are each file's own, computed once (by the path as
// given), and a file that cannot be read is said so, not thrown.
TEST(Provenance, FileDigestsAreEachFilesOwnAndComputedOnce) {
  const auto folder = std::filesystem::temp_directory_path() / ("spmv-digests-" + std::to_string(::getpid()));
  std::filesystem::create_directories(folder);
  std::mt19937_64 random(std::random_device{}());
  std::vector<std::string> texts;
  for (int k = 0; k < 4; ++k) {
    std::string text((k + 1) * 70001, '\0');
    for (char& c : text) c = static_cast<char>(random());
    texts.push_back(text);
    std::ofstream(folder / std::to_string(k), std::ios::binary) << text;
  }
  {
    FileDigests digests;
    for (int k = 0; k < 4; ++k) digests.start(folder / std::to_string(k));
    for (int k = 3; k >= 0; --k) {
      EXPECT_EQ(digests.get(folder / std::to_string(k)), "sha256:" + sha256_hex(texts[static_cast<std::size_t>(k)]));
    }
    std::ofstream(folder / "0", std::ios::binary) << "changed";
    EXPECT_EQ(digests.get(folder / "0"), "sha256:" + sha256_hex(texts[0])) << "computed again";
    EXPECT_EQ(digests.get(folder / "absent").rfind("unreadable: ", 0), 0U);
  }
  std::filesystem::remove_all(folder);
}

// A row read back and written again is the same line: what --resume and
// --aggregate keep is byte for byte what the grading wrote.
TEST(RowJson, ALineReadAndWrittenAgainIsTheSame) {
  RowResult row;
  row.kernel = "ell";
  row.format = "ell";
  row.case_name = "tiny";
  row.verdict = Verdict::kPass;
  row.submission_ms = 0.015360000000000002;
  row.reference_ms = 2;
  row.speedup = 130.20833333333331;
  row.max_error_ratio = -std::numeric_limits<double>::infinity();
  row.x_seed = std::numeric_limits<std::uint64_t>::max();
  row.bound_use = {{"clock", 1e-05}};
  const std::string line = row_to_json_line(row);
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_EQ(line.rfind(R"({"kernel":"ell","format":"ell","kernel_order":0,"case":"tiny",)", 0), 0U) << line;
  EXPECT_NE(line.find(R"("max_error_ratio":"-inf",)"), std::string::npos) << line;
  EXPECT_NE(line.find(R"("submission_ms":0.015360000000000002,"reference_ms":2,"cusparse_ms":null,)"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find(R"("bound_use":{"clock":1e-05},)"), std::string::npos) << line;
  EXPECT_NE(line.find(R"("x_seed":"18446744073709551615",)"), std::string::npos) << line;
  EXPECT_EQ(row_to_json_line(row_from_json(parse_json(line))), line);
}

// results.json's provenance is one object: a name two merged runs give
// different values (their GPUs) keeps both, in order.
TEST(ResultsJson, ProvenanceNamedTwiceKeepsEachValue) {
  RunInfo info;
  info.provenance = {{"submission", "sha256:1"}, {"gpu", "GPU A"}, {"gpu", "GPU B"}};
  const Json report = parse_json(gradescope_json(default_policy(), {}, info));
  const Json& provenance = report.at("extra_data").at("provenance");
  EXPECT_EQ(provenance.size(), 2U);
  EXPECT_EQ(provenance.at("gpu"), "GPU A; GPU B");
}

TEST(RowJson, MissingMembersAreNamed) {
  try {
    row_from_json(parse_json(R"({"kernel": "coo"})"));
    FAIL() << "accepted";
  } catch (const JsonError& e) {
    EXPECT_NE(std::string(e.what()).find("format"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace spmv::grade
