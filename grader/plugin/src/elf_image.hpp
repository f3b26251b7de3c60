// What the loader learns from a plugin file before dlopen() runs any of its
// code: the libraries it names as DT_NEEDED and the dynamic symbols it
// imports. The file is read as untrusted bytes: every offset and size is
// checked against the file, so a truncated or garbage file gives
// ElfFormatError, never a read out of bounds.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace spmv::detail {

// The bytes are not a well-formed 64-bit little-endian ELF shared object;
// what() says which part is wrong.
class ElfFormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ElfDynamicInfo {
  std::vector<std::string> needed;            // DT_NEEDED, in file order
  std::vector<std::string> imported_symbols;  // undefined names in .dynsym; empty without section headers
};

// Also rejects a file whose loadable segments or sections extend past its
// end: dlopen() would map them and fault on the missing pages.
ElfDynamicInfo read_elf_dynamic(std::span<const unsigned char> bytes);

}  // namespace spmv::detail
