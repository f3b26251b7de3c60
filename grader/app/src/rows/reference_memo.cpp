#include "rows/reference_memo.hpp"

#include <cmath>
#include <fstream>
#include <iostream>
#include <sstream>
#include <system_error>
#include <vector>

#include "model/provenance.hpp"
#include "spmv/core/atomic_file.hpp"

namespace spmv::grade {
namespace {

constexpr const char* kMagic = "spmv-grade kept reference window 1";

double now_s() { return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count(); }

void write_values(std::ostream& out, const char* name, const std::vector<double>& values) {
  out << name;
  for (const double value : values) out << ' ' << value;
  out << '\n';
}

// A line "<name> v1 v2 ..." of finite values, none negative.
bool read_values(const std::string& line, const char* name, std::vector<double>& values) {
  std::istringstream in(line);
  std::string word;
  if (!(in >> word) || word != name) return false;
  for (double value = 0; in >> value;) {
    if (!std::isfinite(value) || value < 0) return false;
    values.push_back(value);
  }
  return in.eof();
}

}  // namespace

ReferenceMemo::ReferenceMemo(std::filesystem::path folder, std::string key, std::map<std::string, std::string> cases)
    : folder_(std::move(folder)), key_(std::move(key)), cases_(std::move(cases)) {
  std::error_code error;
  std::filesystem::create_directories(folder_, error);
}

// The entry's key (none without a folder, or for a case of no known
// identity) and its file, named by the key's digest: a case or kernel name
// needs no escaping, and no two keys share a file.
std::optional<ReferenceMemo::Entry> ReferenceMemo::entry_of(const std::string& kernel,
                                                            const std::string& case_name) const {
  const auto it = cases_.find(case_name);
  if (!enabled() || it == cases_.end()) return std::nullopt;
  const std::string digest = sha256_hex(key_ + "\nkernel=" + kernel + "\ncase=" + case_name + "\n" + it->second);
  return Entry{"sha256:" + digest, folder_ / (digest.substr(0, 40) + ".reference")};
}

std::optional<KeptWindow> ReferenceMemo::find(const std::string& kernel, const std::string& case_name) const {
  const auto entry = entry_of(kernel, case_name);
  if (!entry) return std::nullopt;
  const std::filesystem::path& file = entry->file;
  std::ifstream in(file);
  if (!in) return std::nullopt;
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  const auto unusable = [&] {
    std::cerr << "spmv-grade: note: " << file.string()
              << ": not a reference window this grading can use (another key, or damaged); the reference is timed "
                 "again and the file replaced\n";
    return std::nullopt;
  };
  KeptWindow kept;
  double at = 0;
  int short_by_pilot = 0;
  if (lines.size() != 10 || lines[0] != kMagic || lines[1] != "key " + entry->key) {
    return unusable();
  }
  {
    std::istringstream fields(lines[2] + ' ' + lines[3] + ' ' + lines[4] + ' ' + lines[5]);
    std::string at_word, links_word, short_word, pilot_word;
    if (!(fields >> at_word >> at >> links_word >> kept.links >> short_word >> short_by_pilot >> pilot_word >>
          kept.pilot_link_ms) ||
        at_word != "at" || links_word != "links" || short_word != "short_by_pilot" || pilot_word != "pilot_link_ms" ||
        kept.links < 1 || (short_by_pilot != 0 && short_by_pilot != 1) || !std::isfinite(at) ||
        !std::isfinite(kept.pilot_link_ms)) {
      return unusable();
    }
  }
  Side& w = kept.window;
  if (!read_values(lines[6], "bursts_ms", w.bursts_ms) || !read_values(lines[7], "empty_ms", w.empty_ms) ||
      !read_values(lines[8], "event_ms", w.event_ms) || !read_values(lines[9], "empty_event_ms", w.empty_event_ms) ||
      w.bursts_ms.empty() || w.empty_ms.size() != w.bursts_ms.size() || w.event_ms.size() != w.bursts_ms.size() ||
      w.empty_event_ms.size() != w.bursts_ms.size()) {
    return unusable();
  }
  kept.short_by_pilot = short_by_pilot == 1;
  kept.age_s = now_s() - at;
  // Too old, or from a clock set back: timed again.
  if (kept.age_s > static_cast<double>(kMaxAge.count()) || kept.age_s < -1) return std::nullopt;
  return kept;
}

void ReferenceMemo::keep(const std::string& kernel, const std::string& case_name, const KeptWindow& kept) const {
  const auto entry = entry_of(kernel, case_name);
  if (!entry || unwritable_ || kept.window.bursts_ms.empty() || kept.links < 1) return;
  std::ostringstream text;
  text.precision(17);
  text << kMagic << "\nkey " << entry->key << "\nat " << now_s() << "\nlinks " << kept.links << "\nshort_by_pilot "
       << (kept.short_by_pilot ? 1 : 0) << "\npilot_link_ms " << kept.pilot_link_ms << '\n';
  write_values(text, "bursts_ms", kept.window.bursts_ms);
  write_values(text, "empty_ms", kept.window.empty_ms);
  write_values(text, "event_ms", kept.window.event_ms);
  write_values(text, "empty_event_ms", kept.window.empty_event_ms);
  try {
    write_file_atomically(entry->file, text.str());
  } catch (const std::exception& e) {
    // Only the later gradings' time is lost: they time the reference again.
    unwritable_ = true;
    std::cerr << "spmv-grade: note: the reference's windows cannot be kept for the gradings after (" << e.what()
              << "); this grading keeps none\n";
  }
}

}  // namespace spmv::grade
