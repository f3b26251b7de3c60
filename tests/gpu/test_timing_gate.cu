// The device executor's timing gate (grader/runner/src/device_executor.cpp):
// the events of a timed launch are enqueued behind a kernel that holds the
// stream until the launch call has returned, so they time the launch's work
// on the GPU and not the host's pace in making the call. Without a GPU every
// test reports itself skipped.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <random>
#include <thread>

#include "spmv/memory/buffer.hpp"
#include "spmv/runner/executor.hpp"

namespace spmv::runner {
namespace {

// Runs for at least `ns` nanoseconds of the GPU's global timer.
__global__ void gate_test_spin_kernel(unsigned long long ns) {
  unsigned long long start = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  unsigned long long now = start;
  while (now - start < ns) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
}

class TimingGate : public testing::Test {
 protected:
  void SetUp() override {
    if (cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device: the gate holds a GPU stream";
    executor_ = make_device_executor(0);
    executor_->load_own_kernels();
  }

  // A timed launch of a spin of `spin_us` after `host_delay_ms` of the host's time inside the launch call.
  double time_launch(double host_delay_ms, unsigned spin_us, bool wait_inside = false) {
    spmv_status status = SPMV_SUCCESS;
    int error = 0;
    const double ms = executor_->time(
        [&] {
          std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(host_delay_ms));
          gate_test_spin_kernel<<<1, 1, 0, executor_->stream()>>>(spin_us * 1000ULL);
          if (wait_inside) return static_cast<spmv_status>(cudaStreamSynchronize(executor_->stream()));
          return static_cast<spmv_status>(cudaGetLastError());
        },
        status, error);
    EXPECT_EQ(status, SPMV_SUCCESS);
    EXPECT_EQ(error, 0);
    return ms;
  }

  std::mt19937 random_{std::random_device{}()};
  std::unique_ptr<Executor> executor_;
};

TEST_F(TimingGate, TheHostsTimeInsideTheLaunchCallIsNotTimed) {
  const double delay_ms = std::uniform_real_distribution<double>(2.0, 4.0)(random_);
  const unsigned spin_us = std::uniform_int_distribution<unsigned>(20, 60)(random_);
  const double ms = time_launch(delay_ms, spin_us);
  // The spin, and not the host's sleep before it.
  EXPECT_GE(ms, 0.95 * spin_us / 1000.0);
  EXPECT_LT(ms, delay_ms / 2) << "the events waited for the host's " << delay_ms << " ms";
}

TEST_F(TimingGate, WorkOfTheLaunchIsTimedWhole) {
  const unsigned spin_us = std::uniform_int_distribution<unsigned>(1500, 3000)(random_);
  const double ms = time_launch(0, spin_us);
  EXPECT_GE(ms, 0.95 * spin_us / 1000.0);
  EXPECT_LT(ms, 2.0 * spin_us / 1000.0 + 1.0);
}

TEST_F(TimingGate, ALaunchThatWaitsForItsStreamGetsThroughAndLeavesTheGateOpen) {
  // The wait inside the call ends once the gate gives way (10 ms).
  const auto start = std::chrono::steady_clock::now();
  time_launch(0, 50, true);
  const double waited_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(waited_ms, 9.0);
  EXPECT_LT(waited_ms, 1000.0);
  // From now on nothing holds the stream: the host's delay is in the events,
  // as it was before the gate, and no launch waits 10 ms again.
  const double delay_ms = std::uniform_real_distribution<double>(2.0, 4.0)(random_);
  EXPECT_GE(time_launch(delay_ms, 20), 0.9 * delay_ms);
}

}  // namespace
}  // namespace spmv::runner
