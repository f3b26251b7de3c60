// spmv-grade's --config FILE, read by the one INI reader (spmv/core/ini.hpp)
// and handed to the options as if given on the command line: '#' and ';'
// inside a value are kept, the command line wins, a list option may repeat,
// and every error names the file, the line and the key.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli/options.hpp"

namespace spmv::grade {
namespace {

class ConfigFile : public ::testing::Test {
 protected:
  void SetUp() override {
    folder_ = std::filesystem::temp_directory_path() /
              ("spmv-config-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "-" +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(folder_);
  }
  void TearDown() override { std::filesystem::remove_all(folder_); }

  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(folder_ / name) << text;
    return (folder_ / name).string();
  }

  static Options parse(std::vector<std::string> words) {
    words.insert(words.begin(), "spmv-grade");
    std::vector<const char*> argv;
    for (const auto& word : words) argv.push_back(word.c_str());
    return parse_command_line(static_cast<int>(argv.size()), argv.data(),
                              defaults_for_executable("/nowhere/bin/spmv-grade"))
        .options;
  }

  // The message of the UsageError parsing `words` throws.
  static std::string refusal(const std::vector<std::string>& words) {
    try {
      parse(words);
    } catch (const UsageError& error) {
      return error.what();
    }
    ADD_FAILURE() << "accepted";
    return "";
  }

  std::filesystem::path folder_;
};

TEST_F(ConfigFile, AHashInsideASecretSeedIsPartOfIt) {
  const Options from_config = parse({"--config", write("grade.cfg", "secret-seed = ab#cd;ef\n")});
  const Options from_file = parse({"--secret-seed-file", write("secret-seed", "ab#cd;ef\n")});
  ASSERT_TRUE(from_config.secret_seed.has_value());
  EXPECT_EQ(*from_config.secret_seed, "ab#cd;ef");
  EXPECT_EQ(from_config.secret_seed, from_file.secret_seed);
}

TEST_F(ConfigFile, CommentsFollowTheOneRule) {
  const Options options = parse({"--config", write("grade.cfg",
                                                   "# a comment line\n"
                                                   "  ; another\n"
                                                   "case = tiny#1 ; the one with a hash\n"
                                                   "timeout = 30\t# seconds\n")});
  EXPECT_EQ(options.case_filters, std::vector<std::string>{"tiny#1"});
  EXPECT_EQ(options.timeout_s, 30);
}

TEST_F(ConfigFile, TheCommandLineWinsAndListsRepeat) {
  const std::string config = write("grade.cfg", "kernel = coo\nkernel = jds\ncase = tiny_*\nmin-runs = 2\n");
  const Options from_file = parse({"--config", config});
  EXPECT_EQ(from_file.kernels, (std::vector<std::string>{"coo", "jds"}));
  EXPECT_EQ(from_file.timing.min_runs, 2);
  const Options both = parse({"--config", config, "--kernel", "ell", "--min-runs", "3"});
  EXPECT_EQ(both.kernels, std::vector<std::string>{"ell"});
  EXPECT_EQ(both.timing.min_runs, 3);
  EXPECT_EQ(both.case_filters, std::vector<std::string>{"tiny_*"});
}

TEST_F(ConfigFile, ErrorsNameTheFileTheLineAndTheKey) {
  const std::string cfg = (folder_ / "grade.cfg").string();
  struct Refused {
    std::string text;
    std::string says;
  };
  for (const auto& [text, says] : std::vector<Refused>{
           {"kernel = coo\ntimeout = soon\n", ":2: key \"timeout\": expected"},
           {"timeout = 1\n\ntimeout = 2\n", ":3: key \"timeout\": expected once"},
           {"# x\nbogus = 1\n", ":2: key \"bogus\": expected an option"},
           {"[grading]\ntimeout = 1\n", ":1: expected \"name = value\" lines only, found [grading]"},
           {"config = other.cfg\n", ":1: key \"config\": expected an option"},
           {"words\n", ":1: expected \"key = value\""},
       }) {
    write("grade.cfg", text);
    EXPECT_EQ(refusal({"--config", cfg}).find(cfg + says), 0U) << text << refusal({"--config", cfg});
  }
}

}  // namespace
}  // namespace spmv::grade
