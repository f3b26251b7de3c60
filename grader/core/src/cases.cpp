#include "spmv/core/cases.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <system_error>
#include <utility>

#include "message.hpp"
#include "spmv/core/atomic_file.hpp"
#include "spmv/core/generators.hpp"
#include "spmv/core/ini.hpp"
#include "spmv/core/matrix_market.hpp"
#include "spmv/core/text.hpp"

namespace spmv {
namespace {

namespace fs = std::filesystem;
using detail::message;

// Case names end up in test names, report paths and command lines.
bool is_valid_case_name(std::string_view name) {
  return !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
           c == '.';
  });
}

bool ends_with(const std::string& text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_matrix_file_name(const std::string& file_name) {
  return ends_with(file_name, ".mtx") || ends_with(file_name, ".mtx.gz");
}

// "a.mtx" and "a.mtx.gz" are both case "a".
std::string case_name_of(const fs::path& file) {
  std::string name = file.filename().string();
  for (const std::string_view suffix : {".gz", ".mtx"}) {
    if (ends_with(name, suffix)) {
      name.resize(name.size() - suffix.size());
    }
  }
  return name;
}

const char* const kCaseNameRule = "letters, digits, '_', '-' and '.' only";

std::optional<double> parse_number(std::string_view text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc{} || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

// A name a matrix file might have, whether or not the reader reads it
// (big.MTX, a.mtx.bz2, a.mm).
bool looks_like_matrix(const std::string& name) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return lower.find(".mtx") != std::string::npos || ends_with(lower, ".mm") || ends_with(lower, ".mm.gz");
}

// The same file however it is spelled ("./a.mtx", "sub/../a.mtx").
fs::path identity_of(const fs::path& file) { return fs::weakly_canonical(file); }

// ---------------------------------------------------------------------------
// Manifest parsing

class ManifestParser {
 public:
  ManifestParser(fs::path manifest, fs::path dir) : manifest_(std::move(manifest)), dir_(std::move(dir)) {}

  std::vector<TestCase> parse() {
    ini::Document document;
    try {
      document = ini::read_file(manifest_, ini::RepeatedSection::kError);
    } catch (const ini::Error& error) {
      throw CaseError(error.what());
    }
    const ini::Section& before_any_case = document.sections.front();
    if (!before_any_case.keys.empty()) {
      const ini::Key& key = before_any_case.keys.front();
      fail(key.line, message("key \"", key.name, "\" comes before any [case name] section"));
    }
    std::vector<TestCase> cases;
    for (auto section = std::next(document.sections.begin()); section != document.sections.end(); ++section) {
      cases.push_back(read_case(*section));
    }
    return cases;
  }

  // Files named by `file =` lines, so the drop-in rule skips them.
  [[nodiscard]] const std::set<fs::path>& named_files() const { return named_files_; }

  [[nodiscard]] std::string location(std::int64_t line) const { return message(manifest_.string(), ":", line); }

  // The manifest line that defines case `name`, or 0.
  [[nodiscard]] std::int64_t line_of(const std::string& name) const {
    const auto found = case_lines_.find(name);
    return found == case_lines_.end() ? 0 : found->second;
  }

 private:
  using KeySetter = void (ManifestParser::*)(TestCase&, std::string_view);

  [[noreturn]] void fail(std::int64_t line, const std::string& what) const {
    throw CaseError(message(location(line), ": ", what));
  }
  [[noreturn]] void fail(const std::string& what) const { fail(line_, what); }

  TestCase read_case(const ini::Section& section) {
    line_ = section.line;
    if (!is_valid_case_name(section.name)) {
      fail(message("case name \"", section.name, "\": expected ", kCaseNameRule));
    }
    case_lines_.emplace(section.name, section.line);
    TestCase test_case;
    test_case.name = section.name;
    test_case.origin = location(section.line);
    for (const ini::Key& key : section.keys) {
      line_ = key.line;
      set_key(test_case, key);
    }
    check_sources(section);
    return test_case;
  }

  void check_sources(const ini::Section& section) const {
    const bool has_file = section.find("file") != nullptr;
    const bool has_generator = section.find("generator") != nullptr;
    if (has_file == has_generator) {
      fail(section.line, message("case \"", section.name, "\" needs exactly one of \"file\" and ",
                                 "\"generator\", found ", has_file ? "both" : "neither"));
    }
    for (const char* reader_key : {"upper_triangle", "allow_nonfinite"}) {
      if (const ini::Key* key = section.find(reader_key); key != nullptr && has_generator) {
        fail(key->line, message("key \"", reader_key, "\" says how a Matrix Market file is read; case \"", section.name,
                                "\" is generated, not read from a file"));
      }
    }
  }

  void set_key(TestCase& test_case, const ini::Key& key) {
    const KeySetter setter = setter_of(key.name);
    if (key.value.empty() && key.name != "tags") {
      fail(message("key \"", key.name, "\": expected a value, found none"));
    }
    (this->*setter)(test_case, key.value);
  }

  KeySetter setter_of(const std::string& key) const {
    static const std::map<std::string, KeySetter, std::less<>> kSetters{
        {"file", &ManifestParser::set_file},
        {"generator", &ManifestParser::set_generator},
        {"why", &ManifestParser::set_why},
        {"weight", &ManifestParser::set_weight},
        {"visibility", &ManifestParser::set_visibility},
        {"tags", &ManifestParser::set_tags},
        {"tolerance_c", &ManifestParser::set_tolerance_c},
        {"upper_triangle", &ManifestParser::set_upper_triangle},
        {"allow_nonfinite", &ManifestParser::set_allow_nonfinite},
    };
    const auto found = kSetters.find(key);
    if (found == kSetters.end()) {
      std::string known;
      for (const auto& [name, setter] : kSetters) {
        known += message(known.empty() ? "" : ", ", name);
      }
      fail(message("unknown key \"", key, "\" (known keys: ", known, ")"));
    }
    return found->second;
  }

  void set_file(TestCase& test_case, std::string_view value) {
    const fs::path file = dir_ / fs::path(std::string(value));
    if (!is_matrix_file_name(file.filename().string())) {
      fail(message("file \"", value, "\": expected a .mtx or .mtx.gz file"));
    }
    std::error_code error;
    if (!fs::is_regular_file(file, error)) {
      fail(message("file \"", value, "\" not found (looked for ", file.string(), ")"));
    }
    test_case.file = file;
    named_files_.insert(identity_of(file));
  }

  void set_generator(TestCase& test_case, std::string_view value) {
    const std::string spec(value);
    try {
      static_cast<void>(gen::parse_spec(spec));
    } catch (const std::invalid_argument& error) {
      fail(error.what());
    }
    test_case.generator = spec;
  }

  void set_why(TestCase& test_case, std::string_view value) { test_case.why = value; }

  void set_weight(TestCase& test_case, std::string_view value) {
    const std::optional<double> weight = parse_number(value);
    if (!weight || *weight < 0) {
      fail(message("weight: expected a number >= 0, found \"", value, "\""));
    }
    test_case.weight = *weight;
  }

  void set_visibility(TestCase& test_case, std::string_view value) {
    constexpr std::array<std::string_view, 4> kVisibilities{"visible", "hidden", "after_due_date", "after_published"};
    if (std::find(kVisibilities.begin(), kVisibilities.end(), value) == kVisibilities.end()) {
      fail(message("visibility: expected visible, hidden, after_due_date or after_published, found \"", value, "\""));
    }
    test_case.visibility = value;
  }

  void set_tags(TestCase& test_case, std::string_view value) {
    if (value.empty()) {
      return;
    }
    std::size_t begin = 0;
    while (begin <= value.size()) {
      const std::size_t comma = std::min(value.find(',', begin), value.size());
      const std::string_view tag = trim(value.substr(begin, comma - begin));
      if (!is_valid_case_name(tag)) {
        fail(message("tags: expected comma-separated tags of ", kCaseNameRule, ", found \"", value, "\""));
      }
      test_case.tags.emplace_back(tag);
      begin = comma + 1;
    }
  }

  void set_tolerance_c(TestCase& test_case, std::string_view value) {
    const std::optional<double> c = parse_number(value);
    if (!c || *c <= 0) {
      fail(message("tolerance_c: expected a number > 0, found \"", value, "\""));
    }
    test_case.tolerance_c = *c;
  }

  void set_upper_triangle(TestCase& test_case, std::string_view value) {
    if (value == "reject") {
      test_case.read_options.upper_triangle = UpperTriangle::kReject;
    } else if (value == "mirror") {
      test_case.read_options.upper_triangle = UpperTriangle::kMirror;
    } else {
      fail(message("upper_triangle: expected reject or mirror, found \"", value, "\""));
    }
  }

  void set_allow_nonfinite(TestCase& test_case, std::string_view value) {
    if (value != "true" && value != "false") {
      fail(message("allow_nonfinite: expected true or false, found \"", value, "\""));
    }
    test_case.read_options.allow_nonfinite = value == "true";
  }

  fs::path manifest_;
  fs::path dir_;
  std::int64_t line_ = 0;
  std::set<fs::path> named_files_;
  std::map<std::string, std::int64_t> case_lines_;  // case name -> its section's line
};

// ---------------------------------------------------------------------------
// Directory scanning

TestCase file_case(const fs::path& file) {
  TestCase test_case;
  test_case.name = case_name_of(file);
  test_case.file = file;
  test_case.origin = file.string();
  return test_case;
}

// Matrix files directly in `dir` that no manifest line names, sorted so
// that errors about them come in a stable order.
std::vector<fs::path> dropped_files(const fs::path& dir, const std::set<fs::path>& named) {
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir)) {
    if (entry.is_regular_file() && is_matrix_file_name(entry.path().filename().string()) &&
        !named.contains(identity_of(entry.path()))) {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

void add_dropped_cases(const fs::path& dir, const ManifestParser* parser, std::vector<TestCase>& cases) {
  static const std::set<fs::path> kNoneNamed;
  std::map<std::string, fs::path> dropped;
  for (const fs::path& file : dropped_files(dir, parser != nullptr ? parser->named_files() : kNoneNamed)) {
    TestCase test_case = file_case(file);
    if (!is_valid_case_name(test_case.name)) {
      throw CaseError(message(file.string(), ": the file name makes case name \"", test_case.name, "\": expected ",
                              kCaseNameRule, "; rename the file"));
    }
    if (const auto [it, added] = dropped.emplace(test_case.name, file); !added) {
      throw CaseError(message(file.string(), ": case \"", test_case.name, "\" is also ", it->second.string(),
                              "; keep one of the two files"));
    }
    if (const std::int64_t line = parser != nullptr ? parser->line_of(test_case.name) : 0; line != 0) {
      throw CaseError(message(parser->location(line), ": case \"", test_case.name, "\" is also the name of ",
                              file.filename().string(),
                              ", which no \"file =\" line names; name it in this section or rename one"));
    }
    cases.push_back(std::move(test_case));
  }
}

std::vector<TestCase> load_directory(const fs::path& dir, const fs::path& manifest) {
  std::vector<TestCase> cases;
  std::optional<ManifestParser> parser;
  std::error_code error;
  if (fs::is_regular_file(manifest, error)) {
    parser.emplace(manifest, dir);
    cases = parser->parse();
  }
  add_dropped_cases(dir, parser ? &*parser : nullptr, cases);
  std::sort(cases.begin(), cases.end(), [](const TestCase& a, const TestCase& b) { return a.name < b.name; });
  return cases;
}

// ---------------------------------------------------------------------------
// Binary CSR files

constexpr std::array<char, 8> kMagic{'S', 'P', 'M', 'V', 'C', 'S', 'R', '\0'};
constexpr std::uint32_t kBinaryVersion = 1;

struct BinaryHeader {
  std::array<char, 8> magic = kMagic;
  std::uint32_t version = kBinaryVersion;
  std::uint32_t label_bytes = 0;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::int64_t nnz = 0;
};
static_assert(sizeof(BinaryHeader) == 40, "the header is written as is");

// Eight bytes at a time (multiply, rotate), fast enough for files of
// hundreds of MB. It detects truncation and corruption, not tampering: an
// error in any one word always changes the result, since each step is a
// bijection of the running state.
class Checksum {
 public:
  void add(const void* data, std::size_t bytes) {
    const auto* cursor = static_cast<const unsigned char*>(data);
    for (; bytes >= 8; bytes -= 8, cursor += 8) {
      std::uint64_t word = 0;
      std::memcpy(&word, cursor, 8);
      mix(word);
    }
    std::uint64_t tail = 0;
    if (bytes > 0) {
      std::memcpy(&tail, cursor, bytes);
    }
    // The tail's length goes in too, so "ab" + "" differs from "a" + "b".
    mix(tail ^ (std::uint64_t{bytes} << 56));
  }
  [[nodiscard]] std::uint64_t value() const { return state_; }

 private:
  void mix(std::uint64_t word) { state_ = std::rotl((state_ ^ word) * 0x100000001b3ULL, 29); }

  std::uint64_t state_ = 0xcbf29ce484222325ULL;
};

template <typename T>
std::size_t bytes_of(const std::vector<T>& values) {
  return values.size() * sizeof(T);
}

// The bytes written, and after them their checksum.
class BinaryWriter {
 public:
  explicit BinaryWriter(std::ostream& out) : out_(out) {}
  void write(const void* data, std::size_t bytes) {
    checksum_.add(data, bytes);
    out_.write(static_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  }
  void finish() {
    const std::uint64_t sum = checksum_.value();
    out_.write(reinterpret_cast<const char*>(&sum), sizeof sum);
  }

 private:
  std::ostream& out_;
  Checksum checksum_;
};

class BinaryReader {
 public:
  explicit BinaryReader(const fs::path& path) : path_(path), in_(path, std::ios::binary) {
    if (!in_) {
      throw CsrCacheError(message(path_.string(), ": cannot be opened"));
    }
  }
  void read(void* data, std::size_t bytes) {
    in_.read(static_cast<char*>(data), static_cast<std::streamsize>(bytes));
    if (!in_) {
      fail("expected more data, found the end of the file");
    }
    checksum_.add(data, bytes);
  }
  void verify_checksum() {
    const std::uint64_t expected = checksum_.value();
    std::uint64_t stored = 0;
    in_.read(reinterpret_cast<char*>(&stored), sizeof stored);
    if (!in_ || stored != expected) {
      fail(message("expected checksum ", expected, ", found ", stored, " (the file is corrupt)"));
    }
  }
  [[noreturn]] void fail(const std::string& what) const { throw CsrCacheError(message(path_.string(), ": ", what)); }

 private:
  fs::path path_;
  std::ifstream in_;
  Checksum checksum_;
};

void check_header(const BinaryHeader& header, const BinaryReader& reader, std::uintmax_t file_size) {
  if (header.magic != kMagic) {
    reader.fail("expected a binary CSR file (magic \"SPMVCSR\"), found other data");
  }
  if (header.version != kBinaryVersion) {
    reader.fail(message("expected format version ", kBinaryVersion, ", found ", header.version));
  }
  constexpr std::int64_t kMaxIndex = std::numeric_limits<index_t>::max();
  if (header.rows < 0 || header.rows >= kMaxIndex || header.cols < 0 || header.cols > kMaxIndex || header.nnz < 0 ||
      header.nnz > kMaxIndex) {
    reader.fail(message("expected sizes within the int32 range, found rows ", header.rows, ", cols ", header.cols,
                        ", nnz ", header.nnz));
  }
  // Checked before allocating, so a damaged header cannot ask for gigabytes.
  const auto expected_size =
      static_cast<std::uintmax_t>(static_cast<std::int64_t>(sizeof(BinaryHeader)) + header.label_bytes +
                                  static_cast<std::int64_t>(sizeof(index_t)) * (header.rows + 1) +
                                  static_cast<std::int64_t>(sizeof(index_t) + sizeof(value_t)) * header.nnz +
                                  static_cast<std::int64_t>(sizeof(std::uint64_t)));
  if (file_size != expected_size) {
    reader.fail(message("expected ", expected_size, " bytes for the sizes in its header, found ", file_size));
  }
}

// A unique name next to `path`, so concurrent writers never share a file.
// ---------------------------------------------------------------------------
// Generator cache

// The spec with its keys sorted and single spaces: equal specs, equal text.
std::string canonical_spec(const std::string& spec_text) {
  const gen::GeneratorSpec spec = gen::parse_spec(spec_text);
  std::string text = spec.kind;
  for (const auto& [key, value] : spec.params) {
    text += message(" ", key, "=", value);
  }
  return text;
}

std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (const char c : text) {
    hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  }
  return hash;
}

fs::path cache_path_of_canonical(const std::string& canonical, const fs::path& cache_dir) {
  std::array<char, 16> digits{};
  const auto end = std::to_chars(digits.data(), digits.data() + digits.size(), fnv1a(canonical), 16).ptr;
  const std::string hex(digits.data(), end);
  return cache_dir / message("generated-", std::string(16 - hex.size(), '0'), hex, ".csrbin");
}

std::optional<CsrMatrix> read_cached(const fs::path& path, const std::string& canonical) {
  std::error_code error;
  if (!fs::is_regular_file(path, error)) {
    return std::nullopt;
  }
  try {
    std::string label;
    CsrMatrix a = load_csr_binary(path, &label);
    if (label == canonical) {
      return a;
    }
  } catch (const CsrCacheError&) {
    // Corrupt or foreign: regenerated below.
  }
  return std::nullopt;
}

void write_cache(const fs::path& path, const CsrMatrix& a, const std::string& canonical) {
  try {
    fs::create_directories(path.parent_path());
    save_csr_binary(path, a, canonical);
  } catch (const std::exception&) {
    // A read-only or full cache only costs the next run a regeneration.
  }
}

}  // namespace

std::vector<TestCase> load_cases(const fs::path& dir_or_file) {
  std::error_code error;
  if (fs::is_directory(dir_or_file, error)) {
    return load_directory(dir_or_file, dir_or_file / kCaseManifestName);
  }
  if (!fs::is_regular_file(dir_or_file, error)) {
    throw CaseError(message(dir_or_file.string(), ": no such case directory or file"));
  }
  const std::string file_name = dir_or_file.filename().string();
  if (ends_with(file_name, ".ini")) {
    const fs::path dir = dir_or_file.has_parent_path() ? dir_or_file.parent_path() : fs::path(".");
    return load_directory(dir, dir_or_file);
  }
  if (!is_matrix_file_name(file_name)) {
    throw CaseError(
        message(dir_or_file.string(), ": expected a case directory, a manifest (.ini) or a ", ".mtx/.mtx.gz file"));
  }
  return {file_case(dir_or_file)};
}

std::vector<fs::path> unread_matrix_files(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code error;
  if (!fs::is_directory(dir, error)) return files;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, error)) {
    if (!entry.is_regular_file(error)) continue;
    const std::string name = entry.path().filename().string();
    if (looks_like_matrix(name) && !is_matrix_file_name(name)) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::vector<fs::path> subfolder_matrix_files(const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code error;
  if (!fs::is_directory(dir, error)) return files;
  // Files a manifest's "file = sub/a.mtx" line names are cases; a manifest
  // that does not parse names none here (load_cases reports it).
  std::set<fs::path> named;
  if (const fs::path manifest = dir / kCaseManifestName; fs::is_regular_file(manifest, error)) {
    try {
      ManifestParser parser(manifest, dir);
      static_cast<void>(parser.parse());
      named = parser.named_files();
    } catch (const std::exception&) {
      named.clear();
    }
  }
  // Below the folder's own entries, links not followed; a deep tree is
  // cut short (the count still says something is there).
  constexpr int kDeepest = 8;
  constexpr std::size_t kMostFiles = 1000;
  fs::recursive_directory_iterator it(dir, fs::directory_options::skip_permission_denied, error);
  for (; !error && it != fs::recursive_directory_iterator() && files.size() < kMostFiles; it.increment(error)) {
    if (it.depth() >= kDeepest) it.disable_recursion_pending();
    if (it.depth() == 0 || !it->is_regular_file(error)) continue;
    if (looks_like_matrix(it->path().filename().string()) && !named.contains(identity_of(it->path()))) {
      files.push_back(it->path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

fs::path generator_cache_path(const std::string& generator_spec, const fs::path& cache_dir) {
  return cache_path_of_canonical(canonical_spec(generator_spec), cache_dir);
}

CsrMatrix load_case_matrix(const TestCase& test_case, const fs::path& cache_dir) {
  if (test_case.generator.empty()) {
    return read_matrix_market(test_case.file, test_case.read_options);
  }
  if (cache_dir.empty()) {
    return gen::generate(test_case.generator);
  }
  const std::string canonical = canonical_spec(test_case.generator);
  const fs::path path = cache_path_of_canonical(canonical, cache_dir);
  if (std::optional<CsrMatrix> cached = read_cached(path, canonical)) {
    return std::move(*cached);
  }
  CsrMatrix a = gen::generate(test_case.generator);
  write_cache(path, a, canonical);
  return a;
}

void save_csr_binary(const fs::path& path, const CsrMatrix& a, std::string_view label) {
  if (a.row_ptr.size() != static_cast<std::size_t>(a.rows) + 1 || a.values.size() != a.col_idx.size()) {
    throw CsrCacheError(message(path.string(), ": expected row_ptr of rows + 1 = ", a.rows + 1,
                                " and as many values as columns, found ", a.row_ptr.size(), ", ", a.values.size(),
                                " values and ", a.col_idx.size(), " columns"));
  }
  BinaryHeader header;
  header.label_bytes = static_cast<std::uint32_t>(label.size());
  header.rows = a.rows;
  header.cols = a.cols;
  header.nnz = a.nnz();
  try {
    write_file_atomically(path, [&](std::ostream& out) {
      BinaryWriter writer(out);
      writer.write(&header, sizeof header);
      writer.write(label.data(), label.size());
      writer.write(a.row_ptr.data(), bytes_of(a.row_ptr));
      writer.write(a.col_idx.data(), bytes_of(a.col_idx));
      writer.write(a.values.data(), bytes_of(a.values));
      writer.finish();
    });
  } catch (const std::runtime_error& e) {
    throw CsrCacheError(e.what());
  }
}

CsrMatrix load_csr_binary(const fs::path& path, std::string* label) {
  BinaryReader reader(path);
  std::error_code error;
  const std::uintmax_t file_size = fs::file_size(path, error);
  BinaryHeader header;
  reader.read(&header, sizeof header);
  check_header(header, reader, file_size);
  std::string stored_label(header.label_bytes, '\0');
  reader.read(stored_label.data(), stored_label.size());
  CsrMatrix a;
  a.rows = static_cast<index_t>(header.rows);
  a.cols = static_cast<index_t>(header.cols);
  a.row_ptr.resize(static_cast<std::size_t>(header.rows) + 1);
  a.col_idx.resize(static_cast<std::size_t>(header.nnz));
  a.values.resize(static_cast<std::size_t>(header.nnz));
  reader.read(a.row_ptr.data(), bytes_of(a.row_ptr));
  reader.read(a.col_idx.data(), bytes_of(a.col_idx));
  reader.read(a.values.data(), bytes_of(a.values));
  reader.verify_checksum();
  if (label != nullptr) {
    *label = std::move(stored_label);
  }
  return a;
}

}  // namespace spmv
