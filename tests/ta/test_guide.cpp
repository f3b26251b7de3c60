// The TA guide must take a TA from a new case to its grading on its own:
// it holds a command, run by the docs_commands test like every `sh doc-test`
// block, that grades a case folder with spmv-grade.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace spmv::ta {
namespace {

// The bodies of the guide's ```sh doc-test blocks.
std::vector<std::string> doc_test_blocks(const std::filesystem::path& path) {
  std::ifstream file(path);
  EXPECT_TRUE(file) << "cannot read " << path;
  std::vector<std::string> blocks;
  bool inside = false;
  for (std::string line; std::getline(file, line);) {
    if (!inside && line == "```sh doc-test") {
      inside = true;
      blocks.emplace_back();
    } else if (inside && line.starts_with("```")) {
      inside = false;
    } else if (inside) {
      blocks.back() += line + "\n";
    }
  }
  return blocks;
}

TEST(TaGuide, ShowsACommandThatGradesACaseFolder) {
  const auto blocks = doc_test_blocks(std::filesystem::path(SPMV_SOURCE_DIR) / "docs" / "ta-guide.md");
  bool grades = false;
  for (const auto& block : blocks) {
    grades = grades || (block.find("bin/spmv-grade ") != std::string::npos &&
                        block.find("--cases ") != std::string::npos && block.find("--case ") != std::string::npos);
  }
  EXPECT_TRUE(grades) << "no doc-test block of docs/ta-guide.md runs spmv-grade --cases FOLDER --case NAME ("
                      << blocks.size() << " blocks)";
}

}  // namespace
}  // namespace spmv::ta
