// The body of a row's child process: load both plugins, upload the case in
// the kernel's format, run the submission three times between guard zones,
// check the inputs, and time a correct kernel against the reference. Every
// result goes into the RowChannel as raw data; nothing is printed.
#pragma once

#include <filesystem>
#include <string>

#include "case_data.hpp"
#include "channel.hpp"
#include "spmv/contract/plugin.h"
#include "timing.hpp"

namespace spmv::grade {

struct RowTask {
  const PreparedCase* prepared = nullptr;
  std::string kernel;
  spmv_format format = SPMV_FORMAT_CSR;
  std::filesystem::path submission;
  std::filesystem::path reference;
  spmv_memory_space memory = SPMV_MEMORY_DEVICE;
  int device = 0;
  TimingOptions timing;
  bool measure_cusparse = false;
};

// Never throws: failures are written to the channel, which ends at kDone.
void run_row_child(const RowTask& task, const RowChannel& channel);

}  // namespace spmv::grade
