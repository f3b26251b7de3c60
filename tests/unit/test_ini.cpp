// spmv::ini, the reader of cases.ini and the policy: sections and keys as
// written, the one comment rule, and every error naming the source and line.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "spmv/core/ini.hpp"
#include "spmv/core/text.hpp"

namespace {

using spmv::ini::Document;
using spmv::ini::Error;
using spmv::ini::RepeatedSection;

Document parse(const std::string& text, RepeatedSection repeated = RepeatedSection::kError) {
  return spmv::ini::parse(text, "test.ini", repeated);
}

// The line of the error parse() throws for `text`, and its message; a
// test failure when it throws none.
Error error_of(const std::string& text, RepeatedSection repeated = RepeatedSection::kError) {
  try {
    parse(text, repeated);
  } catch (const Error& error) {
    return error;
  }
  ADD_FAILURE() << "accepted:\n" << text;
  return Error("test.ini", -1, "none");
}

void expect_error(const std::string& text, std::int64_t line, const std::string& says,
                  RepeatedSection repeated = RepeatedSection::kError) {
  const Error error = error_of(text, repeated);
  const std::string what = error.what();
  const std::string where = "test.ini:" + std::to_string(line) + ": ";
  EXPECT_EQ(error.line(), line) << what;
  EXPECT_EQ(what.rfind(where, 0), 0U) << "expected it to start with " << where << ": " << what;
  EXPECT_NE(what.find(says), std::string::npos) << "expected \"" << says << "\" in: " << what;
}

TEST(IniTrim, RemovesWhiteSpaceAtBothEndsOnly) {
  EXPECT_EQ(spmv::trim(" \t a b \r\n\f\v"), "a b");
  EXPECT_EQ(spmv::trim("x"), "x");
  EXPECT_EQ(spmv::trim(" \t\r\n"), "");
  EXPECT_EQ(spmv::trim(""), "");
}

TEST(IniReader, KeysBeforeAnyHeaderBelongToSectionNone) {
  const Document document = parse("total = 3\n\n[a]\nx = 1\n");
  ASSERT_EQ(document.sections.size(), 2U);
  EXPECT_EQ(document.sections[0].name, "");
  EXPECT_EQ(document.sections[0].line, 0);
  ASSERT_EQ(document.sections[0].keys.size(), 1U);
  EXPECT_EQ(document.sections[0].keys[0].name, "total");
  EXPECT_EQ(document.sections[0].keys[0].value, "3");
  EXPECT_EQ(document.sections[0].keys[0].line, 1);
  EXPECT_EQ(document.sections[1].name, "a");
  EXPECT_EQ(document.sections[1].line, 3);
  ASSERT_NE(document.sections[1].find("x"), nullptr);
  EXPECT_EQ(document.sections[1].find("x")->line, 4);
  EXPECT_EQ(document.sections[1].find("y"), nullptr);
  EXPECT_TRUE(parse("").sections[0].keys.empty());
}

// One comment rule: ';' or '#' at the start of a line or after a space or
// tab; elsewhere it is text.
TEST(IniReader, CommentRule) {
  struct Line {
    std::string text;
    std::string value;  // of key k
  };
  const std::vector<Line> lines{
      {"k = issue#3", "issue#3"}, {"k = a;b", "a;b"},      {"k = a #b", "a"}, {"k = a ;b", "a"}, {"k = a\t#b", "a"},
      {"k = a\t; b # c", "a"},    {"k=#x", "#x"},          {"k=;x", ";x"},    {"k = #x", ""},    {"k =", ""},
      {"k = a = b", "a = b"},     {"k = x# y #z", "x# y"},
  };
  for (const auto& [text, value] : lines) {
    const Document document = parse("[s]\n" + text + "\n");
    const spmv::ini::Key* key = document.sections.at(1).find("k");
    ASSERT_NE(key, nullptr) << text;
    EXPECT_EQ(key->value, value) << text;
  }
  for (const std::string comment : {"# k = 1", "; k = 1", "   # k = 1", "\t; [s]", "#", ";;"}) {
    const Document document = parse(comment + "\n");
    EXPECT_EQ(document.sections.size(), 1U) << comment;
    EXPECT_TRUE(document.sections[0].keys.empty()) << comment;
  }
  EXPECT_EQ(parse("[a] ; the case\n").sections.at(1).name, "a");
  EXPECT_EQ(parse("[a;b]\n").sections.at(1).name, "a;b");
  EXPECT_EQ(parse("[a#1]\n").sections.at(1).name, "a#1");
}

TEST(IniReader, ByteOrderMarkAndCarriageReturns) {
  const Document document = parse("\xEF\xBB\xBF[a]\r\nk = v \r\n\r\nj = w");
  ASSERT_EQ(document.sections.size(), 2U);
  EXPECT_EQ(document.sections[1].name, "a");
  EXPECT_EQ(document.sections[1].find("k")->value, "v");
  EXPECT_EQ(document.sections[1].find("j")->value, "w");
  EXPECT_EQ(document.sections[1].find("j")->line, 4);
}

TEST(IniReader, RepeatedSection) {
  expect_error("[a]\nk = 1\n\n[b]\n[a]\n", 5, "section [a] is already defined at line 1");
  const Document merged = parse("[a]\nk = 1\n[b]\nk = 2\n[a]\nj = 3\n", RepeatedSection::kContinue);
  ASSERT_EQ(merged.sections.size(), 3U);
  EXPECT_EQ(merged.sections[1].name, "a");
  EXPECT_EQ(merged.sections[1].line, 1);
  ASSERT_EQ(merged.sections[1].keys.size(), 2U);
  EXPECT_EQ(merged.sections[1].keys[1].name, "j");
  EXPECT_EQ(merged.sections[1].keys[1].line, 6);
  EXPECT_EQ(merged.sections[2].find("k")->value, "2");
  // A key is once per section, however many headers the section has.
  expect_error("[a]\nk = 1\n[b]\n[a]\nk = 2\n", 5, "key \"k\" is already set in [a] at line 2",
               RepeatedSection::kContinue);
}

TEST(IniReader, ErrorsNameTheLine) {
  expect_error("just words\n", 1, "expected \"key = value\" or \"[section]\", found \"just words\"");
  expect_error("[a]\n# x\n\n  words ; not this\n", 4, "found \"words\"");
  expect_error("[a\nk = 1\n", 1, "expected \"]\" to close the section name, found \"[a\"");
  expect_error("[a] x\n", 1, "expected \"]\"");
  expect_error("k = 1\n[  ]\n", 2, "expected a section name between [ and ], found none");
  expect_error("[a]\n = 1\n", 2, "expected a key before \"=\"");
  expect_error("k = 1\nk = 2\n", 2, "key \"k\" is already set at line 1");
  expect_error("[a]\nk = 1\n[b]\nk = 1\nk = 3\n", 5, "key \"k\" is already set in [b] at line 4");
}

TEST(IniReader, AFileThatCannotBeOpened) {
  const std::filesystem::path missing = std::filesystem::temp_directory_path() / "spmv_ini_no_such_dir" / "x.ini";
  try {
    spmv::ini::read_file(missing, RepeatedSection::kError);
    FAIL() << "read a file that does not exist";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()), missing.string() + ": cannot be opened");
    EXPECT_EQ(error.line(), 0);
  }
}

TEST(IniReader, ReadFileNamesThePathInErrors) {
  std::random_device device;
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("spmv_ini_" + std::to_string(device()) + ".ini");
  std::ofstream(file) << "[a]\nk = 1\nnonsense\n";
  try {
    spmv::ini::read_file(file, RepeatedSection::kError);
    ADD_FAILURE() << "accepted a line without '='";
  } catch (const Error& error) {
    EXPECT_EQ(std::string(error.what()).rfind(file.string() + ":3: ", 0), 0U) << error.what();
  }
  std::filesystem::remove(file);
}

// Random files: sections and keys of random names, values holding '#' and
// ';' that are text, comments placed anywhere the rule allows, blank lines
// and padding; the reader must give back exactly what was written, each
// with its line.
class RandomIni {
 public:
  explicit RandomIni(std::uint32_t seed) : random_(seed) {}

  struct Written {
    std::string text;
    std::vector<spmv::ini::Section> sections;
  };

  Written make() {
    Written written;
    written.sections.emplace_back();
    std::int64_t line = 0;
    const auto add_line = [&](const std::string& text) {
      written.text += text + (pick(4) == 0 ? "\r\n" : "\n");
      return ++line;
    };
    const int section_count = static_cast<int>(pick(6));
    for (int s = -1; s < section_count; ++s) {
      if (s >= 0) {
        const std::string section_name = unique_name(written.sections);
        const std::int64_t at = add_line(padding() + "[" + padding() + section_name + padding() + "]" + comment());
        written.sections.push_back({section_name, at, {}});
      }
      auto& section = written.sections.back();
      const int key_count = static_cast<int>(pick(5));
      for (int k = 0; k < key_count; ++k) {
        while (pick(3) == 0) add_line(pick(2) == 0 ? padding() : padding() + comment_mark() + words());
        std::string key = unique_key(section);
        const std::string value = pick(5) == 0 ? "" : value_text();
        const std::int64_t at = add_line(padding() + key + padding() + "=" + padding() + value + comment());
        section.keys.push_back({key, value, at});
      }
    }
    return written;
  }

 private:
  std::size_t pick(std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(random_); }

  std::string name() {
    static const std::string kChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";
    std::string text;
    const std::size_t length = 1 + pick(10);
    for (std::size_t i = 0; i < length; ++i) text += kChars[pick(kChars.size())];
    return text;
  }

  std::string unique_name(const std::vector<spmv::ini::Section>& sections) {
    for (;;) {
      std::string candidate = name();
      bool taken = false;
      for (const auto& section : sections) taken = taken || section.name == candidate;
      if (!taken) return candidate;
    }
  }

  std::string unique_key(const spmv::ini::Section& section) {
    for (;;) {
      std::string candidate = name();
      if (section.find(candidate) == nullptr) return candidate;
    }
  }

  // Text whose '#' and ';' follow no blank, so they belong to it; inner
  // blanks and '=' are kept too.
  std::string value_text() {
    std::string text = name();
    const std::size_t parts = pick(4);
    for (std::size_t i = 0; i < parts; ++i) {
      static const std::vector<std::string> kJoins{" ", "#", ";", " = ", "\t", ",", "=#"};
      text += kJoins[pick(kJoins.size())] + name();
    }
    return text;
  }

  std::string words() { return pick(2) == 0 ? "" : " " + value_text(); }
  std::string padding() {
    static const std::vector<std::string> kPads{"", "", " ", "  ", "\t", " \t "};
    return kPads[pick(kPads.size())];
  }
  std::string comment_mark() { return pick(2) == 0 ? "#" : ";"; }
  // An end-of-line comment (after a blank) or nothing.
  std::string comment() { return pick(2) == 0 ? "" : (pick(2) == 0 ? " " : "\t") + comment_mark() + words(); }

  std::mt19937 random_;
};

TEST(IniReader, RandomFilesReadBackAsWritten) {
  const std::uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  RandomIni generator(seed);
  for (int round = 0; round < 200; ++round) {
    const RandomIni::Written written = generator.make();
    SCOPED_TRACE(written.text);
    const Document document = parse(written.text);
    ASSERT_EQ(document.sections.size(), written.sections.size());
    for (std::size_t s = 0; s < written.sections.size(); ++s) {
      const auto& expected = written.sections[s];
      const auto& got = document.sections[s];
      EXPECT_EQ(got.name, expected.name);
      EXPECT_EQ(got.line, expected.line);
      ASSERT_EQ(got.keys.size(), expected.keys.size()) << "section [" << expected.name << "]";
      for (std::size_t k = 0; k < expected.keys.size(); ++k) {
        EXPECT_EQ(got.keys[k].name, expected.keys[k].name);
        EXPECT_EQ(got.keys[k].value, expected.keys[k].value);
        EXPECT_EQ(got.keys[k].line, expected.keys[k].line);
      }
    }
  }
}

// A broken line put after a random number of good ones is reported on
// its line, whatever came before.
TEST(IniReader, RandomFilesWithABrokenLine) {
  const std::uint32_t seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  RandomIni generator(seed);
  std::mt19937 random(seed);
  const std::vector<std::pair<std::string, std::string>> broken{
      {"no equals sign here", "expected \"key = value\""},
      {"[unclosed", "expected \"]\""},
      {"[ ]", "expected a section name"},
      {"= value", "expected a key"},
  };
  for (int round = 0; round < 100; ++round) {
    const RandomIni::Written written = generator.make();
    const auto& [line, says] = broken[random() % broken.size()];
    std::int64_t lines = 0;
    for (const char c : written.text) lines += c == '\n' ? 1 : 0;
    SCOPED_TRACE(written.text + line);
    expect_error(written.text + line + "\n[after]\nk = 1\n", lines + 1, says);
  }
}

}  // namespace
