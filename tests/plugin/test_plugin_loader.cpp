// The plugin loader against modules broken in one way each (built from
// broken_plugin.cpp), files that are not shared objects at all, and a good
// plugin: every failure must be a PluginError that names the file and says
// what is wrong, never a crash.
#include <dlfcn.h>
#include <elf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "sparse_test_support.hpp"
#include "spmv/plugin/plugin.hpp"

namespace {

namespace fs = std::filesystem;

fs::path loader_plugin(const std::string& variant) {
  return fs::path(SPMV_LOADER_PLUGIN_DIR) / ("libspmv_loader_test_" + variant + ".so");
}

std::vector<unsigned char> read_bytes(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A file in a per-process scratch folder, removed with the fixture.
class ScratchFiles : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("spmv-loader-" + std::to_string(getpid()) + "-" + info->test_suite_name() + "-" + info->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::vector<unsigned char>& bytes) const {
    const fs::path path = dir_ / name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return path;
  }

  fs::path dir_;
};

// The PluginError message of loading `path`, or "" if it loaded.
std::string load_error(const fs::path& path, const spmv::PluginLoadOptions& options = {}) {
  try {
    (void)spmv::Plugin::load(path, options);
  } catch (const spmv::PluginError& error) {
    return error.what();
  }
  return "";
}

struct BrokenCase {
  std::string variant;
  std::string expected_message;
};

std::string vendor_refusal(const std::string& what) {
  return what +
         ": submissions must implement SpMV themselves; this vendor library is not allowed "
         "(the policy's [libraries] forbidden)";
}

class BrokenPlugin : public ::testing::TestWithParam<BrokenCase> {};

TEST_P(BrokenPlugin, IsRefusedWithItsOwnMessage) {
  const BrokenCase& c = GetParam();
  const fs::path path = loader_plugin(c.variant);
  const std::string message = load_error(path);
  ASSERT_FALSE(message.empty()) << path << " loaded although it is broken (" << c.variant << ")";
  EXPECT_EQ(message.rfind(path.string() + ": ", 0), 0u) << "message does not start with the file: " << message;
  EXPECT_NE(message.find(c.expected_message), std::string::npos)
      << "expected to contain: " << c.expected_message << "\nfound: " << message;
}

INSTANTIATE_TEST_SUITE_P(
    Loader, BrokenPlugin,
    ::testing::Values(BrokenCase{"missing_entry", "no entry point spmv_plugin_entry: not built as an SpMV plugin"},
                      BrokenCase{"null_table", "spmv_plugin_entry returned a null plugin table"},
                      BrokenCase{"wrong_abi", "built for ABI version " + std::to_string(SPMV_PLUGIN_ABI_VERSION + 2) +
                                                  ", this grader speaks version " +
                                                  std::to_string(SPMV_PLUGIN_ABI_VERSION) + ": rebuild the plugin"},
                      BrokenCase{"no_name", "the plugin table has no name"},
                      BrokenCase{"bad_memory",
                                 "memory space 7 is neither SPMV_MEMORY_DEVICE (0) nor SPMV_MEMORY_HOST (1)"},
                      BrokenCase{"no_kernels", "the plugin table lists no kernels"},
                      BrokenCase{"null_kernel_array", "kernel_count is 2 but the kernel array is null"},
                      BrokenCase{"unnamed_kernel", "kernel entry 1 has no name"},
                      BrokenCase{"duplicate_names", "kernel name \"csr_scalar\" appears twice (entries 0 and 1)"},
                      BrokenCase{"unknown_format", "kernel \"coo\" (entry 1) has unknown format 42"},
                      BrokenCase{"null_launch", "kernel \"coo\" (entry 1) has a null launch function"},
                      BrokenCase{"unresolved_symbol", "undefined symbol: spmv_test_function_never_defined"},
                      BrokenCase{"links_cusparse", vendor_refusal("links libcusparse.so.99")},
                      BrokenCase{"imports_cublas", vendor_refusal("imports cublasSgemv_v2")}),
    [](const ::testing::TestParamInfo<BrokenCase>& param_info) { return param_info.param.variant; });

TEST(Loader, LoadsAGoodPluginAndFindsItsKernels) {
  const fs::path path = loader_plugin("good");
  const spmv::Plugin plugin = spmv::Plugin::load(path);
  EXPECT_EQ(plugin.path(), path);
  EXPECT_EQ(plugin.name(), "loader-test");
  EXPECT_EQ(plugin.memory(), SPMV_MEMORY_HOST);

  std::vector<std::string> names;
  for (const spmv_kernel_entry* kernel : plugin.kernels()) names.emplace_back(kernel->name);
  EXPECT_EQ(names, (std::vector<std::string>{"csr_scalar", "coo"}));

  const spmv_kernel_entry* coo = plugin.find("coo");
  ASSERT_NE(coo, nullptr);
  EXPECT_EQ(coo->format, SPMV_FORMAT_COO);
  EXPECT_EQ(plugin.find("ell"), nullptr);
  EXPECT_EQ(&plugin.require("csr_scalar"), plugin.find("csr_scalar"));

  // The launch pointer leads into the loaded module's code.
  const std::uint64_t seed = spmv::test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 random(seed);
  const float x = std::uniform_real_distribution<float>(0.25f, 1.0f)(random);
  float y = 0.0f;
  EXPECT_EQ(coo->launch(nullptr, &x, &y, nullptr, nullptr), SPMV_SUCCESS);
  EXPECT_EQ(y, x + 1.0f);
}

TEST(Loader, RequireNamesThePluginAndListsItsKernels) {
  const spmv::Plugin plugin = spmv::Plugin::load(loader_plugin("good"));
  try {
    (void)plugin.require("jds");
    FAIL() << "require(\"jds\") found a kernel the plugin does not have";
  } catch (const spmv::PluginError& error) {
    EXPECT_EQ(
        std::string(error.what()),
        loader_plugin("good").string() + ": plugin \"loader-test\" has no kernel \"jds\" (it has: csr_scalar, coo)");
  }
}

TEST(Loader, MovingKeepsTheModuleAndDestructionUnloadsIt) {
  const fs::path path = loader_plugin("good");
  const auto is_loaded = [&] {
    void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_NOLOAD);
    if (handle != nullptr) dlclose(handle);
    return handle != nullptr;
  };
  ASSERT_FALSE(is_loaded());
  {
    spmv::Plugin first = spmv::Plugin::load(path);
    spmv::Plugin second = std::move(first);
    EXPECT_TRUE(is_loaded());
    EXPECT_EQ(second.name(), "loader-test");
    EXPECT_NE(second.find("coo"), nullptr);
  }
  EXPECT_FALSE(is_loaded());
}

TEST(Loader, VendorCheckHappensBeforeLoadingAndCanBeTurnedOff) {
  const spmv::PluginLoadOptions allow_vendor{.forbid_vendor_libraries = false};
  // Linked against the stand-in libcusparse.so.99, which the module finds.
  const spmv::Plugin linked = spmv::Plugin::load(loader_plugin("links_cusparse"), allow_vendor);
  EXPECT_NE(linked.find("coo"), nullptr);
  // Its cuBLAS import resolves nowhere: only dlopen() can now object.
  const std::string message = load_error(loader_plugin("imports_cublas"), allow_vendor);
  EXPECT_NE(message.find("cannot be loaded"), std::string::npos) << message;
  EXPECT_NE(message.find("undefined symbol: cublasSgemv_v2"), std::string::npos) << message;
}

// The policy names the forbidden libraries: a plugin linking one not named
// loads, one named is refused, whichever the list.
TEST(Loader, TheForbiddenLibrariesAreTheOnesNamed) {
  const spmv::PluginLoadOptions only_cublas{.forbidden_libraries = {"cublas"}};
  const spmv::Plugin linked = spmv::Plugin::load(loader_plugin("links_cusparse"), only_cublas);
  EXPECT_NE(linked.find("coo"), nullptr) << "cuSPARSE is not forbidden by this list";
  EXPECT_NE(load_error(loader_plugin("imports_cublas"), only_cublas).find("imports cublasSgemv_v2"), std::string::npos);
  const spmv::PluginLoadOptions only_cusparse{.forbidden_libraries = {"cusparse"}};
  EXPECT_NE(load_error(loader_plugin("links_cusparse"), only_cusparse).find("links libcusparse.so.99"),
            std::string::npos);
  const spmv::PluginLoadOptions none{.forbidden_libraries = {}};
  EXPECT_NE(spmv::Plugin::load(loader_plugin("links_cusparse"), none).find("coo"), nullptr);
}

TEST(Loader, NeededLibrariesReadsTheDynamicSection) {
  const std::vector<std::string> linked = spmv::needed_libraries(loader_plugin("links_cusparse"));
  EXPECT_NE(std::find(linked.begin(), linked.end(), "libcusparse.so.99"), linked.end())
      << "libcusparse.so.99 missing from DT_NEEDED";
  for (const std::string& library : spmv::needed_libraries(loader_plugin("good"))) {
    EXPECT_EQ(library.find("cusparse"), std::string::npos) << library;
  }
}

TEST(Loader, MissingFileAndFolderAreRefused) {
  const fs::path missing = fs::path(SPMV_LOADER_PLUGIN_DIR) / "libnot_there.so";
  EXPECT_EQ(load_error(missing), missing.string() + ": no such file");
  EXPECT_EQ(load_error(SPMV_LOADER_PLUGIN_DIR), std::string(SPMV_LOADER_PLUGIN_DIR) + ": not a regular file");
}

TEST_F(ScratchFiles, GarbageIsNotASharedObject) {
  const std::uint64_t seed = spmv::test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 random(seed);
  std::vector<unsigned char> noise(4096);
  for (unsigned char& byte : noise) byte = static_cast<unsigned char>(random());
  const std::string text = "#!/bin/sh\necho not a plugin\n";

  for (const fs::path& path : {write("noise.so", noise), write("empty.so", {}),
                               write("script.so", std::vector<unsigned char>(text.begin(), text.end()))}) {
    const std::string message = load_error(path);
    EXPECT_EQ(message.rfind(path.string() + ": not a 64-bit ELF shared object: ", 0), 0u) << message;
  }
}

TEST_F(ScratchFiles, WrongKindsOfElfAreNamed) {
  const std::vector<unsigned char> good = read_bytes(loader_plugin("good"));
  ASSERT_GT(good.size(), sizeof(Elf64_Ehdr));
  const auto patched = [&](std::size_t offset, unsigned char value) {
    std::vector<unsigned char> bytes = good;
    bytes[offset] = value;
    return bytes;
  };
  const struct {
    const char* name;
    std::vector<unsigned char> bytes;
    const char* reason;
  } cases[] = {
      {"class32.so", patched(EI_CLASS, ELFCLASS32), "a 32-bit ELF file"},
      {"bigendian.so", patched(EI_DATA, ELFDATA2MSB), "not little-endian"},
      {"object.o", patched(offsetof(Elf64_Ehdr, e_type), ET_REL), "(a relocatable object file)"},
  };
  for (const auto& c : cases) {
    const std::string message = load_error(write(c.name, c.bytes));
    EXPECT_NE(message.find("not a 64-bit ELF shared object"), std::string::npos) << message;
    EXPECT_NE(message.find(c.reason), std::string::npos) << "expected " << c.reason << " in: " << message;
  }
}

// Every prefix of a real plugin is refused before dlopen() could map pages
// past the end of the file.
TEST_F(ScratchFiles, TruncatedPluginIsRefusedAtEveryLength) {
  const std::vector<unsigned char> good = read_bytes(loader_plugin("good"));
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n < 256 && n < good.size(); ++n) lengths.push_back(n);
  for (std::size_t n = 256; n < good.size(); n += 61) lengths.push_back(n);
  lengths.push_back(good.size() - 1);

  for (const std::size_t length : lengths) {
    const fs::path path =
        write("truncated.so", std::vector<unsigned char>(good.begin(), good.begin() + static_cast<long>(length)));
    const std::string message = load_error(path);
    EXPECT_NE(message.find("not a 64-bit ELF shared object"), std::string::npos)
        << "truncated to " << length << " of " << good.size() << " bytes: " << (message.empty() ? "loaded" : message);
  }
}

// Random damage to the headers and the dynamic section: the reader must
// answer (a list or PluginError), never read out of bounds or crash.
TEST_F(ScratchFiles, CorruptedElfNeverCrashesTheReader) {
  const std::vector<unsigned char> good = read_bytes(loader_plugin("good"));
  Elf64_Ehdr header;
  std::memcpy(&header, good.data(), sizeof(header));
  const std::size_t header_bytes = header.e_phoff + std::size_t{header.e_phnum} * header.e_phentsize;
  ASSERT_LT(header_bytes, good.size());

  const std::uint64_t seed = spmv::test::fresh_seed();
  SPMV_TRACE_SEED(seed);
  std::mt19937_64 random(seed);
  int refused = 0;
  constexpr int kTrials = 600;
  for (int trial = 0; trial < kTrials; ++trial) {
    std::vector<unsigned char> bytes = good;
    // Mostly the headers, where one wrong offset or count matters most.
    const std::size_t region = trial % 4 == 0 ? bytes.size() : header_bytes;
    const int damaged = 1 + static_cast<int>(random() % 8);
    for (int i = 0; i < damaged; ++i) bytes[random() % region] = static_cast<unsigned char>(random());
    const fs::path path = write("corrupt.so", bytes);
    try {
      (void)spmv::needed_libraries(path);
    } catch (const spmv::PluginError& error) {
      ++refused;
      ASSERT_NE(std::string(error.what()).find(path.string()), std::string::npos) << error.what();
    }
  }
  // Damage that hits no checked field goes unnoticed; most does not.
  EXPECT_GT(refused, kTrials / 10);
}

TEST(Loader, FormatNames) {
  EXPECT_STREQ(spmv::format_name(SPMV_FORMAT_COO), "coo");
  EXPECT_STREQ(spmv::format_name(SPMV_FORMAT_CSR), "csr");
  EXPECT_STREQ(spmv::format_name(SPMV_FORMAT_ELL), "ell");
  EXPECT_STREQ(spmv::format_name(SPMV_FORMAT_HYB), "hyb");
  EXPECT_STREQ(spmv::format_name(SPMV_FORMAT_JDS), "jds");
  EXPECT_STREQ(spmv::format_name(SPMV_FORMAT_SELL), "sell");
  EXPECT_STREQ(spmv::format_name(static_cast<spmv_format>(0)), "unknown");
}

}  // namespace
