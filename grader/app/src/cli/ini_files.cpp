#include "cli/ini_files.hpp"

#include <array>
#include <iostream>
#include <vector>

#include "model/exit_codes.hpp"
#include "model/json.hpp"
#include "scoring/policy.hpp"
#include "spmv/cli/command_line.hpp"
#include "spmv/core/cases.hpp"

namespace spmv::grade {
namespace po = boost::program_options;
namespace {

constexpr std::string_view kHostSection = "gpu-host";

// gpu-host/host.ini of the Gradescope autograder (tools/gradescope): where
// run_autograder sends each submission to be graded on a GPU.
constexpr std::array kHostKeys{
    ini::KeySpec{.name = "host", .required = true, .meaning = "the GPU grading host's name or address"},
    ini::KeySpec{.name = "user", .required = true, .meaning = "the account the autograder's key logs in as"},
    ini::KeySpec{.name = "port",
                 .type = ini::ValueType::kWholeNumber,
                 .min = 1,
                 .max = 65535,
                 .default_value = "22",
                 .meaning = "the host's SSH port"},
    ini::KeySpec{.name = "key", .meaning = "the private key, relative to host.ini"},
    ini::KeySpec{.name = "known_hosts", .meaning = "the host's public key line(s), relative to host.ini"},
    ini::KeySpec{.name = "timeout",
                 .type = ini::ValueType::kWholeNumber,
                 .min = 1,
                 .max = 86400,
                 .default_value = "1800",
                 .meaning = "seconds for one grading, queue included"},
};

[[noreturn]] void refuse(const std::string& source, std::int64_t line, const std::string& problem) {
  throw UsageError(ini::Error(source, line, problem).what());
}

// A host.ini: one section, [gpu-host], its keys those of kHostKeys.
Json host_values(const ini::Document& document) {
  for (const ini::Section& section : document.sections) {
    if (section.name.empty() && !section.keys.empty()) {
      const ini::Key& key = section.keys.front();
      refuse(document.source, key.line, "key \"" + key.name + "\": expected under [gpu-host], found before it");
    }
    if (!section.name.empty() && section.name != kHostSection) {
      refuse(document.source, section.line, "expected only [gpu-host], found [" + section.name + "]");
    }
  }
  const ini::Section* host = ini::find_section(document, kHostSection);
  if (host == nullptr) refuse(document.source, 0, "expected a [gpu-host] section, found none");
  try {
    ini::check(document, *host, kHostKeys);
  } catch (const ini::Error& error) {
    throw UsageError(error.what());
  }
  Json values = Json::object();
  for (const auto& [name, value] : ini::values_with_defaults(*host, kHostKeys)) values[name] = value;
  return Json{{std::string(kHostSection), values}};
}

Json document_json(const std::string& type, const ini::Document& document) {
  Json sections = Json::array();
  for (const ini::Section& section : document.sections) {
    Json keys = Json::array();
    for (const ini::Key& key : section.keys)
      keys.push_back({{"name", key.name}, {"value", key.value}, {"line", key.line}});
    sections.push_back({{"name", section.name}, {"line", section.line}, {"keys", keys}});
  }
  return {{"type", type}, {"file", document.source}, {"sections", sections}};
}

ini::Document read(const std::filesystem::path& file, ini::RepeatedSection repeated,
                   ini::RepeatedKey repeated_key = ini::RepeatedKey::kError) {
  try {
    return ini::read_file(file, repeated, repeated_key);
  } catch (const ini::Error& error) {
    throw UsageError(error.what());
  }
}

po::parsed_options config_options(const ini::Document& document, const po::options_description& allowed) {
  po::parsed_options parsed(&allowed);
  for (const ini::Section& section : document.sections) {
    if (!section.name.empty()) {
      refuse(document.source, section.line, "expected \"name = value\" lines only, found [" + section.name + "]");
    }
    for (const ini::Key& key : section.keys) {
      if (allowed.find_nothrow(key.name, false) == nullptr) {
        refuse(document.source, key.line,
               "key \"" + key.name + "\": expected an option of spmv-grade --help (without --), found an unknown key");
      }
      po::option option(key.name, {key.value});
      option.original_tokens = {key.name, key.value};
      parsed.options.push_back(option);
      // This key and the earlier ones of its name, stored alone: its value's
      // error, or a repeat of an option that takes one value, names its line.
      po::parsed_options same_name(&allowed);
      for (const po::option& earlier : parsed.options) {
        if (earlier.string_key == key.name) same_name.options.push_back(earlier);
      }
      try {
        po::variables_map scratch;
        po::store(same_name, scratch);
      } catch (const po::multiple_occurrences&) {
        refuse(document.source, key.line,
               "key \"" + key.name + "\": expected once (it takes one value), found it set at line " +
                   std::to_string(section.find(key.name)->line) + " already");
      } catch (const po::error& error) {
        refuse(document.source, key.line,
               "key \"" + key.name + "\": expected a value of --" + key.name + ", found \"" + key.value + "\" (" +
                   error.what() + ")");
      }
    }
  }
  return parsed;
}

}  // namespace

po::parsed_options read_config_file(const std::filesystem::path& file, const po::options_description& allowed) {
  return config_options(read(file, ini::RepeatedSection::kError, ini::RepeatedKey::kKeep), allowed);
}

int show_ini(const std::string& type, const std::filesystem::path& file, const po::options_description& config) {
  Json shown;
  if (type == "host") {
    const ini::Document document = read(file, ini::RepeatedSection::kError);
    Json values = host_values(document);
    shown = document_json(type, document);
    shown["values"] = std::move(values);
  } else if (type == "cases" || type == "policy") {
    // Checked by the grader's own loader of that file type, which refuses
    // what a grading would refuse.
    try {
      type == "cases" ? static_cast<void>(load_cases(file)) : static_cast<void>(load_policy(file));
    } catch (const std::exception& error) {
      throw UsageError(error.what());
    }
    shown = document_json(type,
                          read(file, type == "cases" ? ini::RepeatedSection::kError : ini::RepeatedSection::kContinue));
  } else if (type == "config") {
    const ini::Document document = read(file, ini::RepeatedSection::kError, ini::RepeatedKey::kKeep);
    config_options(document, config);
    shown = document_json(type, document);
  } else {
    throw UsageError("--show-ini " + type + ": expected host, cases, policy or config");
  }
  std::cout << shown.dump(2) << '\n';
  return kExitAllPassed;
}

}  // namespace spmv::grade
