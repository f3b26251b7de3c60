// The GPU fake submissions load without a GPU: each passes the loader's
// checks as a device plugin with the six kernel names, links no vendor
// library, and the kernels without the fault say "not implemented" before
// touching the GPU.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "spmv/plugin/plugin.hpp"

namespace {

struct FakeEntry {
  std::string fault;
  std::string verdict;
  std::string library;
};

std::vector<FakeEntry> read_manifest() {
  std::ifstream in(SPMV_GPU_FAKES_MANIFEST);
  EXPECT_TRUE(in) << "cannot open " << SPMV_GPU_FAKES_MANIFEST;
  std::vector<FakeEntry> fakes;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    FakeEntry entry;
    if (!std::getline(fields, entry.fault, '\t') || !std::getline(fields, entry.verdict, '\t') ||
        !std::getline(fields, entry.library)) {
      ADD_FAILURE() << SPMV_GPU_FAKES_MANIFEST << ":" << number << ": expected fault, verdict, library; found " << line;
      continue;
    }
    fakes.push_back(entry);
  }
  return fakes;
}

TEST(GpuFakes, EveryFakeLoadsAsADevicePluginWithSixKernels) {
  const std::vector<FakeEntry> fakes = read_manifest();
  ASSERT_FALSE(fakes.empty());
  for (const FakeEntry& fake : fakes) {
    SCOPED_TRACE(fake.library);
    const spmv::Plugin plugin = spmv::Plugin::load(fake.library);
    EXPECT_EQ(plugin.name(), "gpu_fake_" + fake.fault);
    EXPECT_EQ(plugin.memory(), SPMV_MEMORY_DEVICE);
    for (const char* name : {"coo", "csr_scalar", "csr_vector", "ell", "hyb", "jds"}) {
      EXPECT_NE(plugin.find(name), nullptr) << "no kernel " << name;
    }
  }
}

TEST(GpuFakes, KernelsOtherThanCsrScalarAreNotImplemented) {
  for (const FakeEntry& fake : read_manifest()) {
    SCOPED_TRACE(fake.library);
    const spmv::Plugin plugin = spmv::Plugin::load(fake.library);
    for (const spmv_kernel_entry* kernel : plugin.kernels()) {
      if (std::string(kernel->name) == "csr_scalar") continue;
      EXPECT_EQ(kernel->launch(nullptr, nullptr, nullptr, nullptr, nullptr), SPMV_NOT_IMPLEMENTED) << kernel->name;
    }
  }
}

}  // namespace
