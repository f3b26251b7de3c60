// The runner's LaunchRecorder (grader/runner/src/launch_recorder.hpp), in
// this process, on the GPU: this test program plays the plugin (its own
// file is the "plugin file" whose names are the plugin's), launches kernels
// of its own module, cuSPARSE's SpMV and a kernel JIT-compiled at run time,
// and checks what the recorder says each one was, and the span of kernels
// on two streams. Without a GPU every test reports itself skipped.
#include <cuda_runtime.h>
#include <cusparse.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "launch_recorder.hpp"
#include "spmv/memory/buffer.hpp"

namespace spmv::runner {
namespace {

__global__ void recorder_test_own_kernel(float* out, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[i] = 2.0f * static_cast<float>(i);
}

// Runs for at least `ns` nanoseconds of the GPU's global timer.
__global__ void recorder_test_spin_kernel(unsigned long long ns) {
  unsigned long long start = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  unsigned long long now = start;
  while (now - start < ns) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
}

// Hand-written PTX, compiled by the driver when first launched: a module
// loaded at run time, as a plugin could load one from embedded code.
constexpr char kJitPtx[] = R"(
.version 7.0
.target sm_75
.address_size 64
.visible .entry recorder_test_jit_kernel(.param .u64 out) {
  .reg .b64 %rd<3>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd2, %rd1;
  mov.u32 %r1, 7;
  st.global.u32 [%rd2], %r1;
  ret;
}
)";

bool named(const KernelLaunch& launch, const std::string& part) {
  return canonical_kernel_name(launch.name).find(part) != std::string::npos;
}

std::string describe(const LaunchRecording& recording) {
  std::string text = std::to_string(recording.kernels.size()) + " kernels:";
  for (const KernelLaunch& k : recording.kernels) {
    text += "\n  " + canonical_kernel_name(k.name) + " [" + origin_name(k.origin) + ", module " +
            std::to_string(k.module_id) + ", stream " + std::to_string(k.stream_id) + "]";
  }
  return text + "\nnote: " + recording.note;
}

class LaunchRecorderTest : public testing::Test {
 protected:
  void SetUp() override {
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: CUPTI records kernels on a GPU only";
    check_cuda(cudaFree(nullptr), "creating the CUDA context");
    // As the runner does: the recorder after the context, then the plugin.
    recorder_ = std::make_unique<LaunchRecorder>();
    ASSERT_TRUE(recorder_->available()) << recorder_->note();
    recorder_->plugin_loading("/proc/self/exe");
    check_cuda(cudaMalloc(&out_, kN * sizeof(float)), "cudaMalloc");
  }
  void TearDown() override {
    if (out_ != nullptr) cudaFree(out_);
    recorder_.reset();
  }

  void launch_own(cudaStream_t stream) {
    recorder_test_own_kernel<<<(kN + 255) / 256, 256, 0, stream>>>(out_, kN);
    check_cuda(cudaGetLastError(), "launching the test's own kernel");
  }

  static constexpr int kN = 4096;
  std::unique_ptr<LaunchRecorder> recorder_;
  float* out_ = nullptr;
};

TEST_F(LaunchRecorderTest, OwnKernelIsThePluginsAndCusparseIsForeign) {
  // A 3-row tridiagonal CSR matrix for cuSPARSE, set up outside the window.
  const std::vector<int> row_ptr = {0, 2, 5, 7};
  const std::vector<int> col_idx = {0, 1, 0, 1, 2, 1, 2};
  const std::vector<float> values = {2, -1, -1, 2, -1, -1, 2};
  const std::vector<float> x = {1, 2, 3};
  const Buffer<int> d_row_ptr(MemorySpace::kDevice, std::span<const int>(row_ptr));
  const Buffer<int> d_col_idx(MemorySpace::kDevice, std::span<const int>(col_idx));
  const Buffer<float> d_values(MemorySpace::kDevice, std::span<const float>(values));
  const Buffer<float> d_x(MemorySpace::kDevice, std::span<const float>(x));
  Buffer<float> d_y(MemorySpace::kDevice, 3);
  cusparseHandle_t handle = nullptr;
  cusparseSpMatDescr_t a = nullptr;
  cusparseDnVecDescr_t vx = nullptr, vy = nullptr;
  ASSERT_EQ(cusparseCreate(&handle), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseCreateCsr(&a, 3, 3, 7, const_cast<int*>(d_row_ptr.data()), const_cast<int*>(d_col_idx.data()),
                              const_cast<float*>(d_values.data()), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                              CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F),
            CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseCreateDnVec(&vx, 3, const_cast<float*>(d_x.data()), CUDA_R_32F), CUSPARSE_STATUS_SUCCESS);
  ASSERT_EQ(cusparseCreateDnVec(&vy, 3, d_y.data(), CUDA_R_32F), CUSPARSE_STATUS_SUCCESS);
  const float alpha = 1, beta = 0;
  std::size_t workspace_bytes = 0;
  ASSERT_EQ(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, vx, &beta, vy, CUDA_R_32F,
                                    CUSPARSE_SPMV_CSR_ALG1, &workspace_bytes),
            CUSPARSE_STATUS_SUCCESS);
  const RawBuffer workspace(MemorySpace::kDevice, std::max<std::size_t>(workspace_bytes, 4));
  check_cuda(cudaDeviceSynchronize(), "setting up cuSPARSE");

  recorder_->begin();
  launch_own(nullptr);
  const cusparseStatus_t spmv = cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, vx, &beta, vy,
                                             CUDA_R_32F, CUSPARSE_SPMV_CSR_ALG1, workspace.data());
  check_cuda(cudaDeviceSynchronize(), "the launches");
  const LaunchRecording recording = recorder_->end();
  cusparseDestroyDnVec(vy);
  cusparseDestroyDnVec(vx);
  cusparseDestroySpMat(a);
  cusparseDestroy(handle);
  ASSERT_EQ(spmv, CUSPARSE_STATUS_SUCCESS);

  SCOPED_TRACE(describe(recording));
  ASSERT_TRUE(recording.recorded);
  ASSERT_GE(recording.kernels.size(), 2u);
  const auto own = std::find_if(recording.kernels.begin(), recording.kernels.end(),
                                [](const KernelLaunch& k) { return named(k, "recorder_test_own_kernel"); });
  ASSERT_NE(own, recording.kernels.end());
  EXPECT_EQ(own->origin, KernelOrigin::kPlugin);
  for (const KernelLaunch& k : recording.kernels) {
    if (&k == &*own) continue;
    EXPECT_EQ(k.origin, KernelOrigin::kForeign) << canonical_kernel_name(k.name);
    EXPECT_NE(k.module_id, 0u) << "cuSPARSE's module was loaded after the recorder started: its load was seen";
  }
  // The first kernel that is not the test's own is cuSPARSE's, by name.
  EXPECT_FALSE(recording.foreign_kernel.empty());
  EXPECT_NE(recording.foreign_kernel, canonical_kernel_name(own->name));
  EXPECT_TRUE(is_vendor_kernel_name(recording.foreign_kernel)) << recording.foreign_kernel;
  EXPECT_GT(recording.span_ms, 0.0);
}

TEST_F(LaunchRecorderTest, AModuleLoadedAtRunTimeIsForeign) {
  cudaLibrary_t library = nullptr;
  check_cuda(cudaLibraryLoadData(&library, kJitPtx, nullptr, nullptr, 0, nullptr, nullptr, 0), "cudaLibraryLoadData");
  cudaKernel_t kernel = nullptr;
  check_cuda(cudaLibraryGetKernel(&kernel, library, "recorder_test_jit_kernel"), "cudaLibraryGetKernel");
  void* args[] = {&out_};

  recorder_->begin();
  launch_own(nullptr);
  check_cuda(cudaLaunchKernel(reinterpret_cast<const void*>(kernel), dim3(1), dim3(1), args, 0, nullptr),
             "launching the JIT-compiled kernel");
  check_cuda(cudaDeviceSynchronize(), "the launches");
  const LaunchRecording recording = recorder_->end();
  cudaLibraryUnload(library);

  SCOPED_TRACE(describe(recording));
  ASSERT_EQ(recording.kernels.size(), 2u);
  for (const KernelLaunch& k : recording.kernels) {
    if (named(k, "recorder_test_own_kernel")) {
      EXPECT_EQ(k.origin, KernelOrigin::kPlugin);
    } else {
      EXPECT_TRUE(named(k, "recorder_test_jit_kernel"));
      EXPECT_EQ(k.origin, KernelOrigin::kForeign);
      EXPECT_EQ(recording.foreign_kernel, canonical_kernel_name(k.name));
    }
  }
}

TEST_F(LaunchRecorderTest, SpanCoversAKernelOnAnotherStream) {
  constexpr unsigned long long kSpinNs = 2'000'000;  // 2 ms
  cudaStream_t other = nullptr;
  check_cuda(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");

  recorder_->begin();
  launch_own(nullptr);
  recorder_test_spin_kernel<<<1, 1, 0, other>>>(kSpinNs);
  check_cuda(cudaGetLastError(), "launching the spinning kernel");
  check_cuda(cudaDeviceSynchronize(), "the launches");
  const LaunchRecording recording = recorder_->end();
  cudaStreamDestroy(other);

  SCOPED_TRACE(describe(recording));
  ASSERT_EQ(recording.kernels.size(), 2u);
  EXPECT_NE(recording.kernels[0].stream_id, recording.kernels[1].stream_id);
  std::uint64_t first = recording.kernels[0].start_ns, last = 0;
  for (const KernelLaunch& k : recording.kernels) {
    EXPECT_EQ(k.origin, KernelOrigin::kPlugin) << canonical_kernel_name(k.name);
    ASSERT_GT(k.end_ns, k.start_ns);
    first = std::min(first, k.start_ns);
    last = std::max(last, k.end_ns);
  }
  EXPECT_DOUBLE_EQ(recording.span_ms, static_cast<double>(last - first) / 1e6);
  // The spin alone lasts 2 ms of the GPU's timer; a little slack for the
  // two clocks' granularity.
  EXPECT_GE(recording.span_ms, 1.95);
  EXPECT_TRUE(recording.foreign_kernel.empty()) << recording.foreign_kernel;
}

TEST_F(LaunchRecorderTest, KernelsBeforeTheWindowAreLeftOut) {
  launch_own(nullptr);  // as the runner's fill kernels run before begin()
  check_cuda(cudaDeviceSynchronize(), "the kernel before the window");
  recorder_->begin();
  check_cuda(cudaDeviceSynchronize(), "an empty window");
  const LaunchRecording empty = recorder_->end();
  EXPECT_TRUE(empty.recorded);
  EXPECT_TRUE(empty.kernels.empty()) << describe(empty);
  EXPECT_EQ(empty.span_ms, 0.0);

  recorder_->begin();
  launch_own(nullptr);
  check_cuda(cudaDeviceSynchronize(), "the kernel in the window");
  const LaunchRecording one = recorder_->end();
  EXPECT_EQ(one.kernels.size(), 1u) << describe(one);
}

}  // namespace
}  // namespace spmv::runner
