// The one INI dialect of the project's files, and its one reader: the case
// manifest (cases.ini), the scoring policy, spmv-grade's --config file and
// the Gradescope autograder's gpu-host/host.ini are all read by ini::parse.
// Python tools do not read these files: they ask `spmv-grade --show-ini TYPE
// FILE` for the parsed result as JSON.
//
//   # a comment line (';' works too)
//   top = 1                   ; keys before any [section] belong to section ""
//   [section name]
//   key = value with issue#3  ; the comment begins at this ';'
//   secret-seed = ab#cd;ef    ; the value is "ab#cd;ef"
//
// - A line is blank, a comment, "[name]" or "key = value" (the first '='
//   splits; both sides are trimmed of white space, and the value may be empty).
// - The comment rule: ';' or '#' starts a comment at the beginning of a line
//   (after any white space) or after a space or tab; anywhere else it is part
//   of the text ("issue#3", "a;b"), so a value holds '#' and ';' unless
//   they follow a blank. Every file type follows this rule.
// - A key may appear once per section, unless the file type lets a key
//   repeat (RepeatedKey: --config's list options). A section header given
//   again is an error or continues the earlier section (RepeatedSection).
// - A file type's keys are declared once, as a table of KeySpec (name,
//   type, default, meaning); check() holds a section to its table, and the
//   table's meanings are what the docs and --help say.
// - A UTF-8 byte order mark before the first line is skipped.
// Every problem throws ini::Error in one form: "<source>:<line>: key \"k\":
// expected ..., found ..." (or the line's problem where there is no key).
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
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

enum class RepeatedKey {
  kError,  // "k = 1" twice in a section is an error naming both lines
  kKeep,   // both are kept, in file order (the caller decides what a repeat means)
};

struct Document {
  std::string source;
  // Section "" first (empty unless keys come before any header), then the
  // named sections in the order of their first header.
  std::vector<Section> sections;
};

Document parse(std::string_view text, const std::string& source, RepeatedSection repeated,
               RepeatedKey repeated_key = RepeatedKey::kError);

// parse() of the file's text; its source is the path.
Document read_file(const std::filesystem::path& file, RepeatedSection repeated,
                   RepeatedKey repeated_key = RepeatedKey::kError);

// What a key's value must be.
enum class ValueType {
  kText,         // anything, empty included
  kWholeNumber,  // decimal digits, from KeySpec::min to KeySpec::max
};

// One key of a file type, declared once: check() and the docs read it.
struct KeySpec {
  std::string_view name{};
  ValueType type = ValueType::kText;
  std::int64_t min = 0;  // kWholeNumber only
  std::int64_t max = 0;
  bool required = false;
  std::string_view default_value{};  // when not required and not given
  std::string_view meaning{};
};

// "text", or "a whole number from 1 to 65535".
std::string expected_text(const KeySpec& spec);

// Throws Error naming the line of a key the table does not have, of a value
// that is not of its type, or the section's line for a required key that is
// missing.
void check(const Document& document, const Section& section, std::span<const KeySpec> table);

// The section's value of every key of the table: as written, or its default
// (a missing optional key without a default is left out).
std::vector<std::pair<std::string, std::string>> values_with_defaults(const Section& section,
                                                                      std::span<const KeySpec> table);

// The section of that name, or nullptr.
const Section* find_section(const Document& document, std::string_view name);

}  // namespace spmv::ini
