// The device executor's timing gate (grader/runner/src/device_executor.cpp):
// the events of a timed launch are enqueued behind a kernel that holds the
// stream until the launch call has returned, so they time the launch's work
// on the GPU and not the host's pace in making the call. Without a GPU every
// test reports itself skipped.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <thread>

#include "fresh_seed.hpp"
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

  // A timed launch of a short spin after 2-4 ms of the host's time inside
  // the call: the spin is timed, and not the host's sleep before it.
  void expect_gated(const std::string& which) {
    SPMV_TRACE_SEED(seed_);
    const double delay_ms = std::uniform_real_distribution<double>(2.0, 4.0)(random_);
    const unsigned spin_us = std::uniform_int_distribution<unsigned>(20, 60)(random_);
    const double ms = time_launch(delay_ms, spin_us);
    EXPECT_GE(ms, 0.95 * spin_us / 1000.0) << which;
    EXPECT_LT(ms, delay_ms / 2) << which << ": the events waited for the host's " << delay_ms << " ms";
  }

  const std::uint64_t seed_ = ::spmv::test::fresh_seed();
  std::mt19937 random_{static_cast<std::uint32_t>(seed_)};
  std::unique_ptr<Executor> executor_;
};

TEST_F(TimingGate, TheHostsTimeInsideTheLaunchCallIsNotTimed) { expect_gated("the first launch"); }

TEST_F(TimingGate, WorkOfTheLaunchIsTimedWhole) {
  SPMV_TRACE_SEED(seed_);
  const unsigned spin_us = std::uniform_int_distribution<unsigned>(1500, 3000)(random_);
  const double ms = time_launch(0, spin_us);
  EXPECT_GE(ms, 0.95 * spin_us / 1000.0);
  EXPECT_LT(ms, 2.0 * spin_us / 1000.0 + 1.0);
}

// Times a launch that waits for its stream inside the call; the wall time it took.
double wall_ms_of(const std::function<void()>& call) {
  const auto start = std::chrono::steady_clock::now();
  call();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

TEST_F(TimingGate, ALaunchThatWaitsForItsStreamOnceIsAOneOff) {
  // The wait inside the call ends once the gate gives way (10 ms): a lazily
  // loaded module's first launch does this once.
  const double waited_ms = wall_ms_of([&] { time_launch(0, 50, true); });
  EXPECT_GE(waited_ms, 9.0);
  EXPECT_LT(waited_ms, 1000.0);
  expect_gated("the next launch");
}

TEST_F(TimingGate, ALaunchThatAlwaysWaitsForItsStreamLeavesTheGateOpen) {
  for (int launch = 0; launch < 2; ++launch) {
    EXPECT_GE(wall_ms_of([&] { time_launch(0, 50, true); }), 9.0) << "launch " << launch;
  }
  // From now on nothing holds the stream: no launch waits 10 ms again, and
  // the host's delay is in the events, as it was before the gate.
  EXPECT_LT(wall_ms_of([&] { time_launch(0, 50, true); }), 5.0);
  const double delay_ms = std::uniform_real_distribution<double>(2.0, 4.0)(random_);
  EXPECT_GE(time_launch(delay_ms, 20), 0.9 * delay_ms);
}

TEST_F(TimingGate, ANewKernelClosesTheGateAgainForAllItsLaunches) {
  for (int launch = 0; launch < 2; ++launch) time_launch(0, 50, true);  // the gate is left open
  executor_->new_kernel();
  // Every launch of the next kernel is gated again, not just its first.
  for (int launch = 0; launch < 4; ++launch) expect_gated("launch " + std::to_string(launch));
}

}  // namespace
}  // namespace spmv::runner
