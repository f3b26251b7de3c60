// The one INI dialect of the grader's files: the case manifest (cases.ini)
// and the scoring policy are read by ini::parse.
//
//   # a comment line (';' works too)
//   top = 1                   ; keys before any [section] belong to section ""
//   [section name]
//   key = value with issue#3  ; the comment begins at this ';'
//
// - A line is blank, a comment, "[name]" or "key = value" (the first '='
//   splits; both sides are trimmed of white space, and the value may be empty).
// - The comment rule: ';' or '#' starts a comment at the beginning of a line
//   (after any white space) or after a space or tab; anywhere else it is part
//   of the text ("issue#3", "a;b"). Python's configparser with
//   comment_prefixes and inline_comment_prefixes both ("#", ";"),
//   delimiters ("=",) and optionxform = str reads these files the same way
//   (tools/gradescope/autograder.py's HostIni).
// - A key may appear once per section. A section header given again is an
//   error or continues the earlier section (RepeatedSection).
// - A UTF-8 byte order mark before the first line is skipped.
// Every problem throws ini::Error naming "<source>:<line>".
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace spmv::ini {

class Error : public std::runtime_error {
 public:
  // what(): "<source>:<line>: <problem>", or "<source>: <problem>" for line 0.
  Error(const std::string& source, std::int64_t line, const std::string& problem);
  [[nodiscard]] std::int64_t line() const { return line_; }

 private:
  std::int64_t line_;
};

struct Key {
  std::string name;
  std::string value;
  std::int64_t line = 0;
};

struct Section {
  std::string name;       // "" for the keys before the first header
  std::int64_t line = 0;  // the header's line; 0 for the section ""
  std::vector<Key> keys;  // in file order

  // The key of that name, or nullptr.
  [[nodiscard]] const Key* find(std::string_view key) const;
};

enum class RepeatedSection {
  kError,     // "[a]" twice is an error naming both lines
  kContinue,  // the second "[a]" adds its keys to the first
};

struct Document {
  std::string source;
  // Section "" first (empty unless keys come before any header), then the
  // named sections in the order of their first header.
  std::vector<Section> sections;
};

Document parse(std::string_view text, const std::string& source, RepeatedSection repeated);

// parse() of the file's text; its source is the path.
Document read_file(const std::filesystem::path& file, RepeatedSection repeated);

}  // namespace spmv::ini
