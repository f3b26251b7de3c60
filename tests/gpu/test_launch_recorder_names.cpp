// The host side of the runner's LaunchRecorder, needing no GPU: the names it
// reads from ELF files (a plugin's symbol table, a cubin's kernels) given as
// untrusted bytes, the form in which names are compared, and which names
// are a vendor library's.
#include <elf.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "launch_recorder.hpp"

// A function this program defines, to be found in its own symbol table.
extern "C" [[gnu::noinline, gnu::used]] void launch_recorder_names_marker() { asm volatile(""); }

namespace spmv::runner {
namespace {

// A minimal 64-bit ELF file with a string table and a symbol table, as a
// cubin has them: two kernels (entry flag 0x10, one with a static kernel's
// name), a device function and an undefined function.
std::vector<unsigned char> small_cubin() {
  constexpr char kStrings[] = "\0kernel_a\0helper_b\0_Z17static_kernel_defPf\0undefined_c\0";
  const std::string strings(kStrings, sizeof kStrings - 1);
  const auto symbol = [](std::uint32_t name, unsigned char other, std::uint16_t section) {
    Elf64_Sym s{};
    s.st_name = name;
    s.st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
    s.st_other = other;
    s.st_shndx = section;
    return s;
  };
  const std::vector<Elf64_Sym> symbols = {Elf64_Sym{}, symbol(1, 0x10, 1), symbol(10, 0, 1), symbol(19, 0x10, 1),
                                          symbol(43, 0x10, SHN_UNDEF)};
  const std::size_t strings_at = sizeof(Elf64_Ehdr);
  const std::size_t symbols_at = strings_at + strings.size();
  const std::size_t sections_at = symbols_at + symbols.size() * sizeof(Elf64_Sym);
  std::vector<Elf64_Shdr> sections(3);
  sections[1].sh_type = SHT_STRTAB;
  sections[1].sh_offset = strings_at;
  sections[1].sh_size = strings.size();
  sections[2].sh_type = SHT_SYMTAB;
  sections[2].sh_offset = symbols_at;
  sections[2].sh_size = symbols.size() * sizeof(Elf64_Sym);
  sections[2].sh_link = 1;
  sections[2].sh_entsize = sizeof(Elf64_Sym);
  Elf64_Ehdr header{};
  std::memcpy(header.e_ident, ELFMAG, SELFMAG);
  header.e_ident[EI_CLASS] = ELFCLASS64;
  header.e_ident[EI_DATA] = ELFDATA2LSB;
  header.e_ident[EI_VERSION] = EV_CURRENT;
  header.e_machine = 190;  // EM_CUDA
  header.e_shoff = sections_at;
  header.e_shentsize = sizeof(Elf64_Shdr);
  header.e_shnum = static_cast<std::uint16_t>(sections.size());
  std::vector<unsigned char> bytes(sections_at + sections.size() * sizeof(Elf64_Shdr));
  std::memcpy(bytes.data(), &header, sizeof header);
  std::memcpy(bytes.data() + strings_at, strings.data(), strings.size());
  std::memcpy(bytes.data() + symbols_at, symbols.data(), symbols.size() * sizeof(Elf64_Sym));
  std::memcpy(bytes.data() + sections_at, sections.data(), sections.size() * sizeof(Elf64_Shdr));
  return bytes;
}

TEST(LaunchRecorderNames, CubinKernelsAreItsEntryFunctions) {
  const std::vector<unsigned char> cubin = small_cubin();
  EXPECT_EQ(cubin_kernel_names(cubin.data(), cubin.size()),
            (std::vector<std::string>{"kernel_a", "static_kernel_def(float*)"}));
  EXPECT_EQ(plugin_file_names(cubin), (std::vector<std::string>{"helper_b", "kernel_a", "static_kernel_def(float*)"}));
}

TEST(LaunchRecorderNames, DamagedFilesGiveFewerNamesNeverAFault) {
  const std::vector<unsigned char> cubin = small_cubin();
  for (std::size_t size = 0; size < cubin.size(); ++size) {
    const std::vector<unsigned char> prefix(cubin.begin(), cubin.begin() + static_cast<std::ptrdiff_t>(size));
    EXPECT_LE(cubin_kernel_names(prefix.data(), prefix.size()).size(), 2u) << size << " bytes";
    EXPECT_LE(plugin_file_names(prefix).size(), 3u) << size << " bytes";
  }
  // Offsets and links pointing anywhere: every section header field in turn.
  const std::size_t sections_at = cubin.size() - 3 * sizeof(Elf64_Shdr);
  for (std::size_t at = sections_at; at < cubin.size(); ++at) {
    std::vector<unsigned char> damaged = cubin;
    damaged[at] = 0xff;
    for (const std::string& name : cubin_kernel_names(damaged.data(), damaged.size())) {
      EXPECT_FALSE(name.empty()) << "byte " << at;
    }
  }
  EXPECT_TRUE(cubin_kernel_names(nullptr, 100).empty());
  const std::vector<unsigned char> text = {'n', 'o', 't', ' ', 'a', 'n', ' ', 'E', 'L', 'F'};
  EXPECT_TRUE(plugin_file_names(text).empty());
}

TEST(LaunchRecorderNames, PluginNamesIncludeMangledStringsOutsideSymbolTables) {
  // As a registration string in .rodata: a whole C string, and only that.
  const std::string bytes = std::string("junk\0_ZN4spmv9my_kernelEPf\0x_Z3badv\0_Z7partial", 46);
  const std::vector<unsigned char> file(bytes.begin(), bytes.end());
  EXPECT_EQ(plugin_file_names(file), (std::vector<std::string>{"spmv::my_kernel(float*)"}));
}

TEST(LaunchRecorderNames, ThisProgramsSymbolTableNamesItsFunctions) {
  std::ifstream in("/proc/self/exe", std::ios::binary);
  const std::vector<unsigned char> self{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  const std::vector<std::string> names = plugin_file_names(self);
  EXPECT_NE(std::find(names.begin(), names.end(), "launch_recorder_names_marker"), names.end());
  // A C++ function, demangled.
  EXPECT_TRUE(std::any_of(names.begin(), names.end(), [](const std::string& name) {
    return name.starts_with("spmv::runner::canonical_kernel_name(");
  }));
}

TEST(LaunchRecorderNames, HostAndDeviceNamesOfAKernelCompareEqual) {
  // A static kernel's host launcher is mangled with an L, its device code without.
  EXPECT_EQ(canonical_kernel_name("_ZL17static_kernel_defPf"), canonical_kernel_name("_Z17static_kernel_defPf"));
  EXPECT_EQ(canonical_kernel_name("_Z17static_kernel_defPf"), "static_kernel_def(float*)");
  EXPECT_EQ(canonical_kernel_name("extern_c_kernel"), "extern_c_kernel");
}

TEST(LaunchRecorderNames, VendorKernelsAreToldByName) {
  EXPECT_TRUE(is_vendor_kernel_name("_ZN8cusparse15csrmv_v3_kernelIiEEvv"));  // cusparse::csrmv_v3_kernel<int>()
  EXPECT_TRUE(is_vendor_kernel_name("void gemv2T_kernel_val<int, float, cublasGemvParamsEx<float>>(...)"));
  EXPECT_TRUE(is_vendor_kernel_name("cublasLt::splitKreduce_kernel"));
  EXPECT_TRUE(is_vendor_kernel_name("_ZN8cusolver12geqrf_kernelEv"));
  EXPECT_FALSE(is_vendor_kernel_name("_Z17spmv_csr_vectorPKiS0_PKfS2_Pfi"));
  EXPECT_FALSE(is_vendor_kernel_name("coo_segmented_kernel"));
}

}  // namespace
}  // namespace spmv::runner
