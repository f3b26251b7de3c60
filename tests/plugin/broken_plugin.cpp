// A tiny host plugin for the loader's tests, built once per variant. The
// variant, SPMV_TEST_VARIANT (an enumerator of Variant), breaks the plugin in
// exactly one way; `good` breaks nothing. CMake also defines
// SPMV_TEST_VARIANT_<variant> for the breakages that decide what the module
// exports or imports, which only the preprocessor can choose.
#include <cstdint>
#include <cstring>

#include "spmv/contract/plugin.h"

namespace {

enum class Variant {
  good,
  missing_entry,
  null_table,
  wrong_abi,
  no_name,
  bad_memory,
  no_kernels,
  null_kernel_array,
  unnamed_kernel,
  duplicate_names,
  unknown_format,
  null_launch,
  unresolved_symbol,
  links_cusparse,
  imports_cublas,
};

constexpr Variant kVariant = Variant::SPMV_TEST_VARIANT;

}  // namespace

#if defined(SPMV_TEST_VARIANT_unresolved_symbol)
extern "C" void spmv_test_function_never_defined(void);
#elif defined(SPMV_TEST_VARIANT_links_cusparse)
extern "C" int spmv_test_vendor_stub(void);  // in the stand-in libcusparse.so.99
#elif defined(SPMV_TEST_VARIANT_imports_cublas)
extern "C" int cublasSgemv_v2(void);  // declared, never linked: an import only
#endif

namespace {

// Writes y[0] = x[0] + 1 so a test can tell the module's code ran.
spmv_status mark(const void* /*matrix*/, const float* x, float* y, void* /*scratch*/, cudaStream_t /*stream*/) {
#if defined(SPMV_TEST_VARIANT_unresolved_symbol)
  spmv_test_function_never_defined();
#elif defined(SPMV_TEST_VARIANT_links_cusparse)
  if (spmv_test_vendor_stub() != 0) return SPMV_NOT_IMPLEMENTED;
#elif defined(SPMV_TEST_VARIANT_imports_cublas)
  if (cublasSgemv_v2() != 0) return SPMV_NOT_IMPLEMENTED;
#endif
  y[0] = x[0] + 1.0f;
  return SPMV_SUCCESS;
}

spmv_kernel_entry kernels[] = {
    {"csr_scalar", SPMV_FORMAT_CSR, "first kernel", &mark, nullptr},
    {kVariant == Variant::duplicate_names  ? "csr_scalar"
     : kVariant == Variant::unnamed_kernel ? ""
                                           : "coo",
     SPMV_FORMAT_COO, "second kernel", kVariant == Variant::null_launch ? nullptr : &mark, nullptr},
};

spmv_plugin plugin{
    kVariant == Variant::wrong_abi ? SPMV_PLUGIN_ABI_VERSION + 2 : SPMV_PLUGIN_ABI_VERSION,
    kVariant == Variant::no_name ? nullptr : "loader-test",
    SPMV_MEMORY_HOST,
    kVariant == Variant::no_kernels ? 0u : 2u,
    kVariant == Variant::null_kernel_array ? nullptr : kernels,
};

// A plugin written in C may store any int in an enum field; C++ can only
// do so byte-wise (the values lie outside the enums' ranges).
template <typename Enum>
void store_out_of_range(Enum& field, int value) {
  static_assert(sizeof(Enum) == sizeof(int));
  std::memcpy(&field, &value, sizeof value);
}

[[maybe_unused]] const spmv_plugin* table() {
  if (kVariant == Variant::null_table) return nullptr;
  if (kVariant == Variant::unknown_format) store_out_of_range(kernels[1].format, 42);
  if (kVariant == Variant::bad_memory) store_out_of_range(plugin.memory, 7);
  return &plugin;
}

}  // namespace

#if !defined(SPMV_TEST_VARIANT_missing_entry)
extern "C" SPMV_PLUGIN_EXPORT const spmv_plugin* SPMV_PLUGIN_ENTRY(void) { return table(); }
#endif
