// Building a plugin's kernel table (plugin.h) from typed launch functions.
//
// The table's launch pointers take `const void*`; a kernel's launch function
// takes the view of its format. kernel_entry<&spmv_csr_vector>(name, text)
// makes the entry: the format comes from the launch function's view type
// and a generated forwarder restores that type, so an entry can never pair
// a launch function with the wrong format and no function-pointer cast is
// involved.
//
//   constexpr spmv_kernel_entry kKernels[] = {
//       spmv::contract::kernel_entry<&spmv_coo>("coo", "one thread per entry"),
//   };
//   constexpr spmv_plugin kPlugin = spmv::contract::make_plugin("mine", kKernels);
//   extern "C" SPMV_PLUGIN_EXPORT const spmv_plugin* SPMV_PLUGIN_ENTRY(void) { return &kPlugin; }
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "spmv/contract/coo.h"
#include "spmv/contract/csr.h"
#include "spmv/contract/ell.h"
#include "spmv/contract/hyb.h"
#include "spmv/contract/jds.h"
#include "spmv/contract/plugin.h"
#include "spmv/contract/sell.h"

// Every table source defines it. Programs that link a plugin's objects
// statically (the reference kernels in the bench and the GPU tests) call it
// directly instead of loading the module.
extern "C" SPMV_PLUGIN_EXPORT const spmv_plugin* SPMV_PLUGIN_ENTRY(void);

namespace spmv::contract {

// The format whose view a kernel takes, for every format of the catalog
// (catalog.h); a view type without a specialization is not part of the
// contract and does not compile.
template <typename View>
struct view_format;
#define SPMV_VIEW_FORMAT(name, NAME, Name, number)           \
  template <>                                                \
  struct view_format<spmv_##name##_view> {                   \
    static constexpr spmv_format value = SPMV_FORMAT_##NAME; \
  };
SPMV_FORMATS(SPMV_VIEW_FORMAT)
#undef SPMV_VIEW_FORMAT

template <typename View>
using typed_launch_fn = spmv_status (*)(const View*, const float*, float*, void*, cudaStream_t);
template <typename View>
using typed_scratch_size_fn = size_t (*)(const View*);

namespace detail {

template <typename Function>
struct launch_view;
template <typename View>
struct launch_view<typed_launch_fn<View>> {
  using type = View;
};
template <typename Function>
struct scratch_view;
template <typename View>
struct scratch_view<typed_scratch_size_fn<View>> {
  using type = View;
};

template <auto Launch>
using launch_view_t = typename launch_view<decltype(Launch)>::type;

template <auto Launch>
spmv_status erased_launch(const void* matrix, const float* x, float* y, void* scratch, cudaStream_t stream) {
  return Launch(static_cast<const launch_view_t<Launch>*>(matrix), x, y, scratch, stream);
}

template <auto ScratchSize>
size_t erased_scratch_size(const void* matrix) {
  using View = typename scratch_view<decltype(ScratchSize)>::type;
  return ScratchSize(static_cast<const View*>(matrix));
}

}  // namespace detail

// The view a launch function of type LaunchFunction takes:
// launch_view_of<decltype(&spmv_jds)> is spmv_jds_view.
template <typename LaunchFunction>
using launch_view_of = typename detail::launch_view<LaunchFunction>::type;

// A kernel that needs no scratch memory.
template <auto Launch>
constexpr spmv_kernel_entry kernel_entry(const char* name, const char* description) {
  return spmv_kernel_entry{name, view_format<detail::launch_view_t<Launch>>::value, description,
                           &detail::erased_launch<Launch>, nullptr};
}

// A kernel that asks for scratch memory; ScratchSize takes the same view.
template <auto Launch, auto ScratchSize>
constexpr spmv_kernel_entry kernel_entry(const char* name, const char* description) {
  using View = detail::launch_view_t<Launch>;
  static_assert(std::is_same_v<View, typename detail::scratch_view<decltype(ScratchSize)>::type>,
                "the scratch-size function must take the launch function's view");
  return spmv_kernel_entry{name, view_format<View>::value, description, &detail::erased_launch<Launch>,
                           &detail::erased_scratch_size<ScratchSize>};
}

template <std::size_t N>
constexpr spmv_plugin make_plugin(const char* name, const spmv_kernel_entry (&kernels)[N],
                                  spmv_memory_space memory = SPMV_MEMORY_DEVICE) {
  static_assert(N > 0 && N <= UINT32_MAX, "a plugin lists at least one kernel");
  return spmv_plugin{SPMV_PLUGIN_ABI_VERSION, name, memory, static_cast<uint32_t>(N), kernels};
}

}  // namespace spmv::contract
