// The work of a row's child process, in two parts. Start-up, which may run
// while another row is being timed: load both plugins, start CUDA (the
// context only: nothing that uses the device's memory or runs on it).
// Then, once the grader lets the row run: upload the case in the kernel's
// format, run the submission three times between guard zones, check the
// inputs, and time a correct kernel against the reference. Every result
// goes into the RowChannel as raw data; nothing is printed.
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
};

class RowRun;

// Made in the parent before fork(); used only in the child. Neither part
// throws: a failure is written to the channel, which then ends at kDone,
// and a failed start-up leaves nothing for run() to do.
class RowChild {
 public:
  RowChild(const RowTask& task, const RowChannel& channel) : task_(task), channel_(channel) {}
  void start_up();
  // Times cuSPARSE too if the channel's measure_cusparse says so.
  void run();

 private:
  const RowTask& task_;
  const RowChannel& channel_;
  RowRun* row_ = nullptr;  // deliberately never destroyed (see child.cpp)
};

}  // namespace spmv::grade
