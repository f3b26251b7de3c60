// spmv-sandbox, the command-line tool: exit status, writes, time limit,
// capped log, excepted files, --copy's refusals, and untrusted builds of a
// submission (cmake/submission with nvcc) that reach outside their folder.
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "harness.hpp"

namespace spmv::sandbox::test {
namespace {

const std::string kTool = SPMV_SANDBOX_TOOL;
const std::string kSource = SPMV_SOURCE_DIR;

struct ToolRun {
  int status = -1;  // exit status
  std::string output;
  double seconds = 0;
};

std::string quote(const std::string& text) {
  std::string quoted = "'";
  for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs spmv-sandbox with the system's trees readable, then `arguments`.
ToolRun tool(const TempTree& tree, const std::vector<std::string>& arguments) {
  std::string command = quote(kTool);
  for (const char* system_tree : {"/usr", "/lib", "/lib64", "/bin", "/sbin", "/etc"}) {
    command += std::string(" --read ") + system_tree;
  }
  for (const auto& argument : arguments) command += " " + quote(argument);
  const fs::path output = tree.root() / "tool-output.txt";
  command += " >" + quote(output.string()) + " 2>&1 </dev/null";
  const auto start = std::chrono::steady_clock::now();
  const int status = std::system(command.c_str());
  ToolRun run;
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  run.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.output = read_text(output);
  return run;
}

class SandboxTool : public testing::Test {
 protected:
  void SetUp() override {
    if (strongest_available() == Level::kNone) GTEST_SKIP() << "no containment here: " << why_unavailable(Level::kUser);
  }
  TempTree tree_;
};

TEST_F(SandboxTool, ExitStatusScratchAndWritesElsewhere) {
  const fs::path scratch = tree_.folder("scratch", 0777);
  const fs::path outside = tree_.folder("world-writable", 0777) / "written.txt";
  const ToolRun run = tool(tree_, {"--scratch", scratch.string(), "--", "/bin/sh", "-c",
                                   "pwd; echo inside > inside.txt; echo outside > " + outside.string() + "; exit 3"});
  EXPECT_EQ(run.status, 3) << run.output;
  EXPECT_NE(run.output.find(scratch.string()), std::string::npos) << "the scratch folder is the cwd\n" << run.output;
  EXPECT_EQ(read_text(scratch / "inside.txt"), "inside\n");
  EXPECT_FALSE(fs::exists(outside)) << run.output;
  EXPECT_NE(run.output.find("Permission denied"), std::string::npos) << run.output;
}

TEST_F(SandboxTool, TimeLimitKillsEverything) {
  const ToolRun run = tool(tree_, {"--time", "1", "--", "/bin/sh", "-c", "sleep 30 & sleep 30"});
  EXPECT_EQ(run.status, 124) << run.output;
  EXPECT_LT(run.seconds, 10) << run.output;
  EXPECT_NE(run.output.find("killed after 1 s"), std::string::npos) << run.output;
}

TEST_F(SandboxTool, LogIsCappedWithTheCutMarked) {
  const fs::path log = tree_.root() / "log.txt";
  const ToolRun run = tool(tree_, {"--log", log.string(), "--", "/bin/sh", "-c", "seq 1 100000"});
  EXPECT_EQ(run.status, 0) << run.output;
  const std::string text = read_text(log);
  EXPECT_LE(text.size(), 64u * 1024 + 128) << "64 KiB and the marker";
  EXPECT_EQ(text.rfind("1\n2\n3\n", 0), 0u) << "the start is kept";
  EXPECT_NE(text.find("bytes of output cut here; 588895 in all]"), std::string::npos) << text.substr(0, 200);
  EXPECT_EQ(text.substr(text.size() - 13), "99999\n100000\n") << "the end is kept";
}

// Files of a readable tree left out by --except, as vendor libraries are
// for builds: unreadable through any path, at every level.
TEST_F(SandboxTool, ExceptedFilesAreUnreadable) {
  const fs::path lib = tree_.folder("toolkit/targets/x86_64-linux/lib");
  tree_.file("toolkit/targets/x86_64-linux/lib/libcudart.so.13", "runtime\n");
  tree_.file("toolkit/targets/x86_64-linux/lib/libcusparse.so.12", "vendor\n");
  tree_.file("toolkit/targets/x86_64-linux/lib/libcusparse_static.a", "vendor\n");
  fs::create_symlink("libcusparse.so.12", lib / "libcusparse.so");
  fs::create_directory_symlink("targets/x86_64-linux/lib", tree_.root() / "toolkit/lib64");
  const std::string root = (tree_.root() / "toolkit").string();
  for (const Level level : {Level::kContainer, Level::kFull}) {
    if (!why_unavailable(level).empty()) continue;
    const ToolRun run = tool(tree_, {"--level", level_name(level), "--read", root, "--except",
                                     root + "/lib64/libcusparse*", "--", "/bin/sh", "-c",
                                     "cat " + root + "/lib64/libcudart.so.13 " + root + "/lib64/libcusparse.so " +
                                         root + "/targets/x86_64-linux/lib/libcusparse_static.a; echo end"});
    EXPECT_NE(run.output.find("runtime\n"), std::string::npos) << level_name(level) << "\n" << run.output;
    EXPECT_EQ(run.output.find("vendor"), std::string::npos) << level_name(level) << "\n" << run.output;
    EXPECT_NE(run.output.find("end\n"), std::string::npos) << run.output;
  }
}

TEST_F(SandboxTool, CopyRefusesLinksAndTooMuch) {
  const fs::path submission = tree_.folder("submission");
  tree_.file("submission/coo.cu", std::string(1000, 'x'));
  ToolRun run = tool(tree_, {"--copy", submission.string(), "--copy-limit", "999", "--", "/bin/true"});
  EXPECT_EQ(run.status, 125) << run.output;
  EXPECT_NE(run.output.find("more than 999 bytes"), std::string::npos) << run.output;
  fs::create_symlink(kSource + "/reference/csr_scalar.cu", submission / "csr_scalar.cu");
  run = tool(tree_, {"--copy", submission.string(), "--", "/bin/true"});
  EXPECT_EQ(run.status, 125) << run.output;
  EXPECT_NE(run.output.find("is a symbolic link"), std::string::npos) << run.output;
}

// The contained build of a submission, as tools/build-submission runs it:
// only the submission (copied), the contract, cmake/ and the toolchain are
// readable; reference/ and the vendor libraries are not.
class SandboxBuild : public SandboxTool {
 protected:
  void SetUp() override {
    SandboxTool::SetUp();
    if (IsSkipped()) return;
    if (std::string(SPMV_CUDA_COMPILER).empty()) GTEST_SKIP() << "no CUDA compiler found at configure time";
    submission_ = tree_.folder("submission");
    for (const auto& entry : fs::directory_iterator(kSource + "/student")) {
      if (entry.path().extension() == ".cu") fs::copy_file(entry.path(), submission_ / entry.path().filename());
    }
  }

  ToolRun build(const std::vector<std::string>& level = {}) {
    const fs::path scratch = tree_.folder("build-" + std::to_string(++builds_), 0777);
    const fs::path compiler_bin = fs::path(SPMV_CUDA_COMPILER).parent_path();
    // CMake where this machine has it (not always /usr/bin), with its share/.
    const fs::path cmake_bin = fs::canonical(SPMV_CMAKE_COMMAND).parent_path();
    const std::string generator = access("/usr/bin/ninja", X_OK) == 0 ? " -G Ninja" : "";
    std::vector<std::string> arguments = level;
    arguments.insert(arguments.end(),
                     {"--time",
                      "120",
                      "--read",
                      kSource + "/cmake",
                      "--read",
                      kSource + "/contract",
                      "--read",
                      compiler_bin.parent_path().string(),
                      "--read",
                      cmake_bin.parent_path().string(),
                      "--except",
                      "/usr/local/cuda*/targets/*/lib/libcusparse*",
                      "--except",
                      "/usr/local/cuda*/targets/*/lib/libcublas*",
                      "--except",
                      "/usr/local/cuda*/targets/*/lib/libcusolver*",
                      "--hide",
                      kSource + "/reference",
                      "--env",
                      "PATH=" + compiler_bin.string() + ":" + cmake_bin.string() + ":/usr/bin:/bin",
                      "--copy",
                      submission_.string(),
                      "--scratch",
                      scratch.string(),
                      "--",
                      "/bin/sh",
                      "-c",
                      "cmake -S " + kSource + "/cmake/submission -B build" + generator +
                          " -DCMAKE_CUDA_COMPILER=" + SPMV_CUDA_COMPILER +
                          " -DCMAKE_CUDA_ARCHITECTURES=90 -DSPMV_SUBMISSION_DIR=$PWD/submission >/dev/null &&"
                          " cmake --build build && test -f build/plugins/libspmv_submission.so"});
    return tool(tree_, arguments);
  }

  void append(const char* file, const std::string& text) { std::ofstream(submission_ / file, std::ios::app) << text; }

  fs::path submission_;
  int builds_ = 0;
};

TEST_F(SandboxBuild, TheStudentStubsBuild) {
  const ToolRun run = build();
  EXPECT_EQ(run.status, 0) << run.output;
}

TEST_F(SandboxBuild, IncludeOfTheReferenceFailsToBuild) {
  append("csr_scalar.cu", "\n#include \"" + kSource + "/reference/csr_scalar.cu\"\n");
  const ToolRun run = build();
  EXPECT_NE(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("reference/csr_scalar.cu"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("Permission denied"), std::string::npos) << run.output;
}

TEST_F(SandboxBuild, IncbinOfAFileOutsideFailsToBuild) {
  append("coo.cu",
         "\nasm(\".pushsection .rodata\\n.incbin \\\"" + kSource + "/reference/csr_scalar.cu\\\"\\n.popsection\");\n");
  const ToolRun run = build();
  EXPECT_NE(run.status, 0) << run.output;
  EXPECT_NE(run.output.find("reference/csr_scalar.cu"), std::string::npos) << run.output;
  // The same submission builds without containment: the sandbox refused it.
  const ToolRun uncontained = build({"--level", "none"});
  EXPECT_EQ(uncontained.status, 0) << uncontained.output;
}

}  // namespace
}  // namespace spmv::sandbox::test
