// Where a grade came from: a SHA-256 of every input that decides it (the
// submission, the grader and its runners, the reference plugin, the policy,
// each case), with the GPU, driver and toolkit and the isolation level. It
// goes into every report, so a grade can be traced to exactly what made it.
#pragma once

#include <filesystem>
#include <future>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace spmv::grade {

// Lowercase hex digest; sha256_file throws std::runtime_error naming the file.
std::string sha256_hex(std::string_view bytes);
std::string sha256_file(const std::filesystem::path& file);

using Provenance = std::vector<std::pair<std::string, std::string>>;

// "sha256:<hex>" of a file, or "unreadable: <why>" (never throws).
std::string file_digest(const std::filesystem::path& file);

// Digests of files (file_digest), each begun on a thread of its own and
// computed once: a grading hashes its own program and its runners (tens of
// MB, a third of a second on one core) while it reads its cases and probes
// the GPU, and asks for the digests when it writes its reports.
class FileDigests {
 public:
  FileDigests() = default;
  FileDigests(const FileDigests&) = delete;
  FileDigests& operator=(const FileDigests&) = delete;
  ~FileDigests();

  // Begins `file`'s digest, unless begun already (by its path as given).
  void start(const std::filesystem::path& file);
  // file_digest(file), begun now if it was not, once done.
  std::string get(const std::filesystem::path& file);

 private:
  std::shared_future<std::string> find_or_start(const std::filesystem::path& file);

  std::mutex mutex_;
  std::map<std::filesystem::path, std::shared_future<std::string>> digests_;
};

// A check value of a secret, "<salt>:<hex>": SHA-256 iterated many times
// over a salt and the secret, so that the value tells whether a later run
// has the same secret without revealing it (a guess costs as many hashes).
// An empty `salt` takes a fresh random one; secret_matches recomputes with
// the check's own salt.
std::string secret_check(const std::string& secret, const std::string& salt = {});
bool secret_matches(const std::string& secret, const std::string& check);

}  // namespace spmv::grade
