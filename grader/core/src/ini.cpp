#include "spmv/core/ini.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <iterator>
#include <map>
#include <utility>

#include "message.hpp"
#include "spmv/core/text.hpp"

namespace spmv::ini {
namespace {

using detail::message;

bool is_comment_start(char c) { return c == ';' || c == '#'; }

// The comment rule of ini.hpp: ';' or '#' at the start of the line or
// after a space or tab; elsewhere it belongs to the text ("issue#3").
std::string_view strip_comment(std::string_view line) {
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (is_comment_start(line[i]) && (i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t')) {
      return line.substr(0, i);
    }
  }
  return line;
}

std::string_view strip_byte_order_mark(std::string_view text) {
  constexpr std::string_view kBom = "\xEF\xBB\xBF";
  return text.starts_with(kBom) ? text.substr(kBom.size()) : text;
}

class Reader {
 public:
  Reader(const std::string& source, RepeatedSection repeated, RepeatedKey repeated_key)
      : repeated_(repeated), repeated_key_(repeated_key) {
    document_.source = source;
    document_.sections.emplace_back();  // section "", the keys before any header
    section_index_.emplace("", 0);
  }

  Document read(std::string_view text) && {
    text = strip_byte_order_mark(text);
    for (std::size_t begin = 0; begin < text.size();) {
      const std::size_t end = std::min(text.find('\n', begin), text.size());
      ++line_;
      read_line(text.substr(begin, end - begin));
      begin = end + 1;
    }
    return std::move(document_);
  }

 private:
  [[noreturn]] void fail(const std::string& problem) const { throw Error(document_.source, line_, problem); }

  void read_line(std::string_view raw) {
    const std::string_view line = trim(strip_comment(raw));
    if (line.empty()) {
      return;
    }
    if (line.front() == '[') {
      start_section(line);
      return;
    }
    const std::size_t equals = line.find('=');
    if (equals == std::string_view::npos) {
      fail(message("expected \"key = value\" or \"[section]\", found \"", line, "\""));
    }
    add_key(trim(line.substr(0, equals)), trim(line.substr(equals + 1)));
  }

  void start_section(std::string_view line) {
    if (line.back() != ']') {
      fail(message("expected \"]\" to close the section name, found \"", line, "\""));
    }
    std::string name(trim(line.substr(1, line.size() - 2)));
    if (name.empty()) {
      fail("expected a section name between [ and ], found none");
    }
    if (const auto found = section_index_.find(name); found != section_index_.end()) {
      if (repeated_ == RepeatedSection::kError) {
        fail(message("section [", name, "] is already defined at line ", document_.sections[found->second].line));
      }
      current_ = found->second;
      return;
    }
    current_ = document_.sections.size();
    section_index_.emplace(name, current_);
    document_.sections.push_back(Section{std::move(name), line_, {}});
  }

  void add_key(std::string_view name, std::string_view value) {
    if (name.empty()) {
      fail("expected a key before \"=\", found none");
    }
    Section& section = document_.sections[current_];
    if (const Key* earlier = section.find(name); earlier != nullptr && repeated_key_ == RepeatedKey::kError) {
      fail(message("key \"", name, "\" is already set",
                   section.name.empty() ? std::string() : message(" in [", section.name, "]"), " at line ",
                   earlier->line));
    }
    section.keys.push_back(Key{std::string(name), std::string(value), line_});
  }

  RepeatedSection repeated_;
  RepeatedKey repeated_key_;
  Document document_;
  std::map<std::string, std::size_t, std::less<>> section_index_;
  std::size_t current_ = 0;
  std::int64_t line_ = 0;
};

}  // namespace

Error::Error(const std::string& source, std::int64_t line, const std::string& problem)
    : std::runtime_error(line > 0 ? message(source, ":", line, ": ", problem) : message(source, ": ", problem)),
      line_(line) {}

const Key* Section::find(std::string_view key) const {
  for (const Key& candidate : keys) {
    if (candidate.name == key) {
      return &candidate;
    }
  }
  return nullptr;
}

Document parse(std::string_view text, const std::string& source, RepeatedSection repeated, RepeatedKey repeated_key) {
  return Reader(source, repeated, repeated_key).read(text);
}

Document read_file(const std::filesystem::path& file, RepeatedSection repeated, RepeatedKey repeated_key) {
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    throw Error(file.string(), 0, "cannot be opened");
  }
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return parse(text, file.string(), repeated, repeated_key);
}

std::string expected_text(const KeySpec& spec) {
  switch (spec.type) {
    case ValueType::kText: return "text";
    case ValueType::kWholeNumber: return message("a whole number from ", spec.min, " to ", spec.max);
  }
  return "text";
}

namespace {

bool has_type(const KeySpec& spec, std::string_view value) {
  if (spec.type == ValueType::kText) {
    return true;
  }
  std::int64_t number = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
  return !value.empty() && value.front() != '-' && error == std::errc{} && end == value.data() + value.size() &&
         number >= spec.min && number <= spec.max;
}

const KeySpec* find_spec(std::span<const KeySpec> table, std::string_view name) {
  const auto found = std::ranges::find(table, name, &KeySpec::name);
  return found == table.end() ? nullptr : &*found;
}

std::string known_keys(std::span<const KeySpec> table) {
  std::string names;
  for (const KeySpec& spec : table) {
    names += (names.empty() ? "" : ", ") + std::string(spec.name);
  }
  return names;
}

}  // namespace

void check(const Document& document, const Section& section, std::span<const KeySpec> table) {
  for (const Key& key : section.keys) {
    const KeySpec* spec = find_spec(table, key.name);
    if (spec == nullptr) {
      throw Error(document.source, key.line,
                  message("key \"", key.name, "\": expected one of ", known_keys(table), ", found an unknown key"));
    }
    if (!has_type(*spec, key.value)) {
      throw Error(document.source, key.line,
                  message("key \"", key.name, "\": expected ", expected_text(*spec), ", found \"", key.value, "\""));
    }
  }
  for (const KeySpec& spec : table) {
    if (spec.required && section.find(spec.name) == nullptr) {
      throw Error(
          document.source, section.line,
          message("key \"", spec.name, "\": expected in [", section.name, "] (", spec.meaning, "), found no such key"));
    }
  }
}

std::vector<std::pair<std::string, std::string>> values_with_defaults(const Section& section,
                                                                      std::span<const KeySpec> table) {
  std::vector<std::pair<std::string, std::string>> values;
  for (const KeySpec& spec : table) {
    if (const Key* key = section.find(spec.name); key != nullptr) {
      values.emplace_back(spec.name, key->value);
    } else if (!spec.default_value.empty()) {
      values.emplace_back(spec.name, spec.default_value);
    }
  }
  return values;
}

const Section* find_section(const Document& document, std::string_view name) {
  const auto found = std::ranges::find(document.sections, name, &Section::name);
  return found == document.sections.end() ? nullptr : &*found;
}

}  // namespace spmv::ini
