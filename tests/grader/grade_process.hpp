// Test support: running spmv-grade as a subprocess in a scratch folder,
// writing small cases, reading its reports back.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "model/json.hpp"
#include "spmv/core/formats.hpp"
#include "spmv/core/matrix_market.hpp"

namespace spmv::test {

// A fresh folder under $TMPDIR (or /tmp), removed with everything in it.
class ScratchDir {
 public:
  ScratchDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base != nullptr ? base : "/tmp") + "/spmv-grade-test-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
    path_ = pattern;
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

inline std::string read_text(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

inline void write_text(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary) << text;
}

// A started spmv-grade process; its output goes to files in `work`.
class GradeProcess {
 public:
  GradeProcess(const std::vector<std::string>& args, const std::filesystem::path& work,
               const std::vector<std::pair<std::string, std::string>>& environment = {})
      : out_(work / "grader.stdout"), err_(work / "grader.stderr") {
    std::vector<std::string> argv_text{SPMV_GRADE_EXE};
    argv_text.insert(argv_text.end(), args.begin(), args.end());
    pid_ = ::fork();
    if (pid_ < 0) throw std::runtime_error("fork failed");
    if (pid_ == 0) exec_child(argv_text, work, environment);
  }

  // Waits at most timeout_s; kills it and returns -1 if it is still running.
  int wait(double timeout_s = 300) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    int status = 0;
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        return -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }

  void kill_now() const { ::kill(pid_, SIGKILL); }
  [[nodiscard]] pid_t pid() const { return pid_; }
  [[nodiscard]] std::string out() const { return read_text(out_); }
  [[nodiscard]] std::string err() const { return read_text(err_); }

 private:
  [[noreturn]] void exec_child(const std::vector<std::string>& argv_text, const std::filesystem::path& work,
                               const std::vector<std::pair<std::string, std::string>>& environment) const {
    if (::chdir(work.c_str()) != 0) ::_exit(126);
    const int out = ::open(out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = ::open(err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (out < 0 || err < 0) ::_exit(126);
    ::dup2(out, STDOUT_FILENO);
    ::dup2(err, STDERR_FILENO);
    for (const auto& [name, value] : environment) ::setenv(name.c_str(), value.c_str(), 1);
    std::vector<char*> argv;
    for (const auto& arg : argv_text) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }

  std::filesystem::path out_, err_;
  pid_t pid_ = -1;
};

struct GradeResult {
  int exit_code = 0;
  std::string out, err;
};

// Runs spmv-grade to the end in `work` (its working folder).
inline GradeResult run_grade(const std::vector<std::string>& args, const std::filesystem::path& work,
                             const std::vector<std::pair<std::string, std::string>>& environment = {}) {
  GradeProcess process(args, work, environment);
  GradeResult result;
  result.exit_code = process.wait();
  result.out = process.out();
  result.err = process.err();
  return result;
}

inline grade::Json read_json(const std::filesystem::path& path) { return grade::parse_json(read_text(path)); }

// Every line of a JSON-lines file, parsed.
inline std::vector<grade::Json> read_json_lines(const std::filesystem::path& path) {
  std::vector<grade::Json> lines;
  std::istringstream text(read_text(path));
  for (std::string line; std::getline(text, line);) {
    if (!line.empty()) lines.push_back(grade::parse_json(line));
  }
  return lines;
}

inline void write_case(const std::filesystem::path& dir, const std::string& name, const CsrMatrix& a) {
  std::filesystem::create_directories(dir);
  write_matrix_market(dir / (name + ".mtx"), a, "test case " + name);
}

}  // namespace spmv::test
