// Where a grade came from: a SHA-256 of every input that decides it (the
// submission, the grader and its runners, the reference plugin, the policy,
// each case), with the GPU, driver and toolkit and the isolation level. It
// goes into every report, so a grade can be traced to exactly what made it.
#pragma once

#include <filesystem>
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

// A check value of a secret, "<salt>:<hex>": SHA-256 iterated many times
// over a salt and the secret, so that the value tells whether a later run
// has the same secret without revealing it (a guess costs as many hashes).
// An empty `salt` takes a fresh random one; secret_matches recomputes with
// the check's own salt.
std::string secret_check(const std::string& secret, const std::string& salt = {});
bool secret_matches(const std::string& secret, const std::string& check);

}  // namespace spmv::grade
