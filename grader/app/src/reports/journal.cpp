#include "reports/journal.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

#include "model/json.hpp"
#include "reports/json_fields.hpp"
#include "reports/reporter.hpp"
#include "spmv/core/atomic_file.hpp"
#include "spmv/sandbox/sandbox.hpp"

namespace spmv::grade {
namespace {

template <typename T>
void add_once(std::vector<T>& items, const T& item) {
  if (std::find(items.begin(), items.end(), item) == items.end()) items.push_back(item);
}

// The one list of a run's JSON members, shared by the writer and the reader.
// `Run` is JournalRun or const JournalRun.
template <typename Run, typename Visitor>
void visit_fields(Run& run, Visitor&& visit) {
  visit("run", run.id);
  visit("submission", run.info.submission);
  visit("submission_name", run.info.submission_name);
  visit("reference", run.info.reference);
  visit("device", run.info.device);
  visit("copy_gbps", run.info.copy_gbps);
  visit("seed", run.info.seed);
  visit("secret_seed", run.info.secret_seed);
  visit("isolation", run.info.isolation);
  visit("isolation_detail", run.info.isolation_detail);
  visit("unisolated", run.info.unisolated);
  visit("elapsed_s", run.info.elapsed_s);
  visit("notes", run.info.notes);
  visit("provenance", run.info.provenance);
  visit("policy", run.info.policy);
  visit("identity", run.info.identity);
}

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

std::filesystem::path run_facts_file(const std::filesystem::path& output_dir) { return output_dir / "run.json"; }

std::string new_run_id() {
  std::random_device device;
  char id[17];
  std::snprintf(id, sizeof id, "%08x%08x", device(), device());
  return id;
}

void write_run_info(const std::filesystem::path& path, const JournalRun& run) {
  Json object = Json::object();
  visit_fields(run, FieldWriter{object});
  write_file_atomically(path, json_text(object) + "\n");
}

JournalRun read_run_info(const std::filesystem::path& path) {
  std::ifstream file(path);
  if (!file) throw JsonError(path.string() + ": cannot open");
  std::ostringstream text;
  text << file.rdbuf();
  try {
    JournalRun run;
    visit_fields(run, FieldReader{parse_json(text.str()), "run"});
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
  bool policies_differ = false;
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
    if (run.policy != runs.front().policy) policies_differ = true;
    if (!merged.copy_gbps) merged.copy_gbps = run.copy_gbps;
    if (!run.device.empty()) add_once(devices, run.device);
    for (const auto& note : run.notes) add_once(merged.notes, note);
    for (const auto& entry : run.provenance) add_once(merged.provenance, entry);
  }
  merged.device.clear();
  for (const auto& device : devices) merged.device += (merged.device.empty() ? "" : "; ") + device;
  if (policies_differ) merged.notes.push_back("The runs of this grading graded under different policies.");
  merged.identity.clear();
  if (seeds_differ) {
    merged.seed.reset();
    merged.notes.push_back("The runs of this grading used different seeds.");
  }
  if (merged.secret_seed) merged.seed.reset();
  return merged;
}

}  // namespace spmv::grade
