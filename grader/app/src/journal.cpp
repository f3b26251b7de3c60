#include "journal.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#include "json.hpp"
#include "reporter.hpp"
#include "spmv/sandbox/sandbox.hpp"

namespace spmv::grade {
namespace {

template <typename T>
void add_once(std::vector<T>& items, const T& item) {
  if (std::find(items.begin(), items.end(), item) == items.end()) items.push_back(item);
}

std::string string_member(const JsonValue& object, const char* name) { return object.at(name).as_string(); }

// Weaker levels sort first; a name no level has counts as the weakest.
int strength(const std::string& isolation) {
  const auto level = sandbox::parse_level(isolation);
  return level ? static_cast<int>(*level) : -1;
}

}  // namespace

std::filesystem::path journal_file(const std::filesystem::path& folder, const std::string& kernel) {
  return folder / (kernel + ".jsonl");
}

std::filesystem::path run_info_file(const std::filesystem::path& folder, const std::string& kernel) {
  return folder / (kernel + ".run.json");
}

std::string new_run_id() {
  std::random_device device;
  char id[17];
  std::snprintf(id, sizeof id, "%08x%08x", device(), device());
  return id;
}

void write_run_info(const std::filesystem::path& path, const JournalRun& run) {
  const RunInfo& info = run.info;
  JsonWriter out;
  out.begin_object()
      .field("run", run.id)
      .field("submission", info.submission)
      .field("submission_name", info.submission_name)
      .field("reference", info.reference)
      .field("device", info.device)
      .field("copy_gbps", info.copy_gbps)
      .field("secret_seed", info.secret_seed)
      .field("isolation", info.isolation)
      .field("isolation_detail", info.isolation_detail)
      .field("unisolated", info.unisolated)
      .field("elapsed_s", info.elapsed_s);
  // As a string: a JSON number cannot hold every 64-bit seed.
  if (info.seed) {
    out.field("seed", std::to_string(*info.seed));
  } else {
    out.key("seed").null();
  }
  out.key("notes").begin_array();
  for (const auto& note : info.notes) out.value(note);
  out.end_array();
  out.key("provenance").begin_array();
  for (const auto& [what, value] : info.provenance) out.begin_array().value(what).value(value).end_array();
  out.end_array();
  out.end_object();
  write_file_atomically(path, out.str() + "\n");
}

JournalRun read_run_info(const std::filesystem::path& path) {
  std::ifstream file(path);
  if (!file) throw JsonError(path.string() + ": cannot open");
  std::ostringstream text;
  text << file.rdbuf();
  try {
    const JsonValue object = parse_json(text.str());
    JournalRun run;
    run.id = string_member(object, "run");
    RunInfo& info = run.info;
    info.submission = string_member(object, "submission");
    info.submission_name = string_member(object, "submission_name");
    info.reference = string_member(object, "reference");
    info.device = string_member(object, "device");
    if (const auto& gbps = object.at("copy_gbps"); !gbps.is_null()) info.copy_gbps = gbps.as_number();
    info.secret_seed = object.at("secret_seed").as_bool();
    info.isolation = string_member(object, "isolation");
    info.isolation_detail = string_member(object, "isolation_detail");
    info.unisolated = object.at("unisolated").as_bool();
    info.elapsed_s = object.at("elapsed_s").as_number();
    if (const auto& seed = object.at("seed"); !seed.is_null()) {
      const std::string& digits = seed.as_string();
      std::uint64_t value = 0;
      const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
      if (error != std::errc() || end != digits.data() + digits.size()) {
        throw JsonError("member \"seed\": \"" + digits + "\" is not a 64-bit number");
      }
      info.seed = value;
    }
    for (const auto& note : object.at("notes").as_array()) info.notes.push_back(note.as_string());
    for (const auto& entry : object.at("provenance").as_array()) {
      const auto& pair = entry.as_array();
      if (pair.size() != 2) throw JsonError("member \"provenance\": an entry is not [what, value]");
      info.provenance.emplace_back(pair[0].as_string(), pair[1].as_string());
    }
    return run;
  } catch (const std::exception& e) {
    throw JsonError(path.string() + ": " + e.what());
  }
}

RunInfo merge_run_infos(const std::vector<JournalRun>& all) {
  std::vector<RunInfo> runs;
  std::vector<std::string> ids;
  for (const auto& run : all) {
    if (std::find(ids.begin(), ids.end(), run.id) != ids.end()) continue;
    ids.push_back(run.id);
    runs.push_back(run.info);
  }
  if (runs.empty()) return {};
  RunInfo merged = runs.front();
  merged.notes.clear();
  merged.provenance.clear();
  std::vector<std::string> devices;
  bool seeds_differ = false;
  merged.elapsed_s = 0;
  for (const RunInfo& run : runs) {
    merged.elapsed_s += run.elapsed_s;
    if (strength(run.isolation) < strength(merged.isolation)) {
      merged.isolation = run.isolation;
      merged.isolation_detail = run.isolation_detail;
    }
    merged.unisolated = merged.unisolated || run.unisolated;
    merged.secret_seed = merged.secret_seed || run.secret_seed;
    if (run.seed != runs.front().seed) seeds_differ = true;
    if (!merged.copy_gbps) merged.copy_gbps = run.copy_gbps;
    if (!run.device.empty()) add_once(devices, run.device);
    for (const auto& note : run.notes) add_once(merged.notes, note);
    for (const auto& entry : run.provenance) add_once(merged.provenance, entry);
  }
  merged.device.clear();
  for (const auto& device : devices) merged.device += (merged.device.empty() ? "" : "; ") + device;
  if (seeds_differ) {
    merged.seed.reset();
    merged.notes.push_back("The runs of this grading used different seeds.");
  }
  if (merged.secret_seed) merged.seed.reset();
  return merged;
}

}  // namespace spmv::grade
