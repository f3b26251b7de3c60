// What the student-facing documents (docs/handout.md, docs/student-guide.md)
// say must agree with the code, and must not send students to the reference
// kernels' sources, which they do not get.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include "sparse_test_support.hpp"
#include "spmv/core/convert.hpp"

namespace spmv {
namespace {

std::string read_doc(const std::string& name) {
  const std::filesystem::path path = std::filesystem::path(SPMV_SOURCE_DIR) / "docs" / name;
  std::ifstream file(path);
  EXPECT_TRUE(file) << "cannot read " << path;
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// The handout's HYB section, from its anchor to the next one.
std::string hyb_section() {
  const std::string handout = read_doc("handout.md");
  const auto begin = handout.find("<a id=\"hyb\"></a>");
  EXPECT_NE(begin, std::string::npos) << "the handout has no HYB section";
  const auto end = handout.find("<a id=", begin + 1);
  return handout.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

// The grader's rule (hyb_default_width) has no 4096-row floor: the
// sentence stating the rule must say rows / 3 and nothing of 4096, and the
// width the handout derives for the example must be the code's.
TEST(Handout, HybWidthRuleIsTheGradersRule) {
  const std::string section = hyb_section();
  const auto rule = section.find("The grader chooses K");
  ASSERT_NE(rule, std::string::npos) << section;
  const std::string sentence = section.substr(rule, section.find(". ", rule) - rule);
  EXPECT_NE(sentence.find("rows / 3"), std::string::npos) << sentence;
  EXPECT_EQ(sentence.find("4096"), std::string::npos) << "the grader keeps no 4096-row floor: " << sentence;

  const std::regex stated("so K = ([0-9]+)\\.");
  std::smatch match;
  ASSERT_TRUE(std::regex_search(section, match, stated)) << "the handout derives no K for the example";
  EXPECT_EQ(std::stoi(match[1].str()), hyb_default_width(test::TeachingKit::csr()));
  EXPECT_NE(
      section.find("With K = " + std::to_string(hyb_default_width(test::TeachingKit::csr())) + " for the example"),
      std::string::npos)
      << "the layouts drawn use another K";
}

TEST(StudentDocs, NoPointerToTheReferenceSources) {
  for (const std::string name : {"handout.md", "student-guide.md"}) {
    const std::string text = read_doc(name);
    for (auto at = text.find("reference/"); at != std::string::npos; at = text.find("reference/", at + 1)) {
      const auto line_start = text.rfind('\n', at) + 1;
      ADD_FAILURE() << name << ": " << text.substr(line_start, text.find('\n', at) - line_start);
    }
  }
}

}  // namespace
}  // namespace spmv
