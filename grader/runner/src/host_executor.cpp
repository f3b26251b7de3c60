#include <chrono>

#include "spmv/runner/executor.hpp"

namespace spmv::runner {
namespace {

class HostExecutor final : public Executor {
 public:
  [[nodiscard]] MemorySpace space() const override { return MemorySpace::kHost; }
  [[nodiscard]] cudaStream_t stream() const override { return nullptr; }
  int synchronize() override { return 0; }  // a host launch has finished when it returns

  double time(const std::function<spmv_status()>& launch, spmv_status& status, int& error) override {
    const auto start = std::chrono::steady_clock::now();
    status = launch();
    const auto stop = std::chrono::steady_clock::now();
    error = 0;
    return std::chrono::duration<double, std::milli>(stop - start).count();
  }
};

}  // namespace

std::unique_ptr<Executor> make_host_executor() { return std::make_unique<HostExecutor>(); }

}  // namespace spmv::runner
