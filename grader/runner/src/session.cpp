#include "session.hpp"

#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "spmv/runner/x_values.hpp"
#include "x_fill.hpp"
#ifdef SPMV_RUNNER_CUSPARSE
#include "cusparse_timer.hpp"
#endif

namespace spmv::runner {
namespace {

// A request refused with a reply kind of its own.
class Refusal : public std::runtime_error {
 public:
  Refusal(ReplyKind kind, int status, const std::string& message)
      : std::runtime_error(message), kind_(kind), status_(status) {}
  [[nodiscard]] ReplyKind kind() const { return kind_; }
  [[nodiscard]] int status() const { return status_; }

 private:
  ReplyKind kind_;
  int status_;
};

// The launch's return value and what synchronizing left, as a refusal.
void check_launch(const LaunchStatus& launch) {
  if (launch.status == SPMV_NOT_IMPLEMENTED) {
    throw Refusal(ReplyKind::kNotImplemented, launch.status, describe_launch(launch));
  }
  if (launch.status != SPMV_SUCCESS) throw Refusal(ReplyKind::kLaunchFailed, launch.status, describe_launch(launch));
  if (launch.error != 0) throw Refusal(ReplyKind::kCudaError, launch.error, cuda_error_name(launch.error));
}

// The vendor libraries the plugin may not use: the grader's policy, from the
// environment it built (SPMV_FORBIDDEN_LIBRARIES, comma-separated), else
// the default list.
std::vector<std::string> forbidden_libraries() {
  const char* given = std::getenv("SPMV_FORBIDDEN_LIBRARIES");
  if (given == nullptr) return kDefaultForbiddenLibraries;
  std::vector<std::string> names;
  std::string name;
  for (const char* c = given;; ++c) {
    if (*c == ',' || *c == '\0') {
      if (!name.empty()) names.push_back(name);
      name.clear();
      if (*c == '\0') break;
    } else {
      name += *c;
    }
  }
  return names;
}

// Whether a /dev entry is a GPU's own node (nvidia0, nvidia1, ...), not one
// of the driver's shared ones (nvidiactl, nvidia-uvm, ...).
bool is_gpu_node(const std::string& name) {
  return name.size() > 6 && std::all_of(name.begin() + 6, name.end(), [](unsigned char c) { return std::isdigit(c); });
}

// What the runner may read and write once it has started: the system's
// libraries, its own folder, the driver's shared nodes and the node of the
// GPU it is graded on (`gpu_minor`; every GPU's when unknown). Nothing else
// of the machine: not the grader's folders, not /proc of other processes,
// not another GPU.
sandbox::SelfRestriction restriction_for(Space space, std::optional<int> gpu_minor) {
  sandbox::SelfRestriction r;
  for (const char* path : {"/usr/lib", "/usr/lib64", "/lib", "/lib64", "/etc/ld.so.cache"}) {
    if (std::filesystem::exists(path)) r.read_only.emplace_back(path);
  }
  // The driver's folder (libcuda.so.1, and the JIT compiler it loads when
  // a kernel comes as PTX only), wherever the installation put it.
  if (space == Space::kDevice) {
    ::dl_iterate_phdr(
        [](dl_phdr_info* info, std::size_t, void* data) {
          const std::string path = info->dlpi_name != nullptr ? info->dlpi_name : "";
          if (path.find("/libcuda.so") != std::string::npos) {
            static_cast<std::vector<std::filesystem::path>*>(data)->push_back(
                std::filesystem::path(path).parent_path());
          }
          return 0;
        },
        &r.read_only);
  }
  // Folders the grader names for tools it runs the runner under (the
  // sanitizer of --memcheck): its environment is the grader's, built from
  // scratch, never the submission's.
  if (const char* more = std::getenv("SPMV_RUNNER_READ_ONLY")) {
    std::string folders = more;
    for (std::size_t start = 0; start <= folders.size();) {
      const std::size_t end = std::min(folders.find(':', start), folders.size());
      if (end > start) r.read_only.emplace_back(folders.substr(start, end - start));
      start = end + 1;
    }
  }
  r.read_write.push_back(std::filesystem::current_path());
  for (const char* device : {"/dev/null", "/dev/zero", "/dev/urandom"}) r.devices.emplace_back(device);
  if (space == Space::kDevice) {
    std::error_code ignored;
    for (const auto& entry : std::filesystem::directory_iterator("/dev", ignored)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("nvidia", 0) != 0) continue;
      if (is_gpu_node(name) && gpu_minor && name != "nvidia" + std::to_string(*gpu_minor)) continue;
      r.devices.push_back(entry.path());
    }
  }
  r.forbid_exec = true;
  return r;
}

}  // namespace

namespace {

// The reference runner's images, their uploads kept: at most this much,
// and on a device at most a sixteenth of its memory (what the submission's
// runners on the same GPU lose). A submission's runner keeps none: it sets
// each case up once.
constexpr std::size_t kReferenceImageBytes = std::size_t{4} << 30;
constexpr std::size_t kReferenceImages = 512;
constexpr std::size_t kReferenceShareOfDevice = 16;

std::size_t reference_image_bytes(Space space) {
  std::size_t free_bytes = 0;
  std::size_t total_bytes = 0;
  if (space != Space::kDevice || cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) return kReferenceImageBytes;
  return std::min(kReferenceImageBytes, total_bytes / kReferenceShareOfDevice);
}

}  // namespace

Session::Session(Space space, sandbox::Level level, bool vendor_timing)
    : space_(space),
      level_(level),
      vendor_timing_(vendor_timing),
      images_(kReferenceImageBytes, vendor_timing ? kReferenceImages : 0) {}

int Session::serve() {
  while (true) {
    Request request;
    int fds[2] = {-1, -1};
    if (!receive_message(kControlFd, &request, sizeof request, fds)) return finish();  // the parent went
    auto reply = std::make_unique<Reply>();
    reply->kind = ReplyKind::kOk;
    try {
      if (request.version != kProtocolVersion) throw std::runtime_error("protocol version mismatch");
      switch (request.command) {
        case Command::kHello: hello(*reply); break;
        case Command::kLoad: load(*reply); break;
        case Command::kSetup: setup(request, fds, *reply); break;
        case Command::kRun: run(request, *reply); break;
        case Command::kChain: chain(request, *reply); break;
        case Command::kBurst: burst(request, *reply); break;
        case Command::kKeepLink: keep_link(request, *reply); break;
        case Command::kCopyKept: copy_kept(request, *reply); break;
        case Command::kCusparse: cusparse(request, *reply); break;
        case Command::kQuit: return finish();
        default: throw std::runtime_error("unknown command");
      }
    } catch (const Refusal& e) {
      reply->kind = e.kind();
      reply->status = e.status();
      store_text(reply->message, e.what());
    } catch (const CudaError& e) {
      reply->kind = ReplyKind::kCudaError;
      reply->status = e.code();
      store_text(reply->message, e.what());
    } catch (const PluginError& e) {
      reply->kind = ReplyKind::kUnusable;
      store_text(reply->message, e.what());
    } catch (const std::exception& e) {
      reply->kind = ReplyKind::kFailed;
      store_text(reply->message, e.what());
    }
    for (const int fd : fds) {
      if (fd >= 0) ::close(fd);
    }
    send_message(kControlFd, reply.get(), sizeof *reply);
  }
}

// The reference runner's last words, for its log: how its images were
// served (a submission's runner prints nothing of its own there: its log
// is the submission's output).
int Session::finish() const {
  if (vendor_timing_ && images_.reads() + images_.hits() > 0) {
    std::fprintf(stderr, "spmv-runner: matrix images: %zu read, %zu from the runner's cache\n", images_.reads(),
                 images_.hits());
  }
  return 0;
}

void Session::hello(Reply& reply) {
  if (space_ == Space::kDevice) {
    executor_ = make_device_executor(0);  // the only GPU it sees
    // Before the restriction: CUPTI sets itself up while it can still read
    // what it needs. A recorder that cannot record says why, and the run goes on.
    recorder_ = std::make_unique<LaunchRecorder>();
    store_text(reply.recorder_note, recorder_->note());
    executor_->load_own_kernels();  // seen by the recorder as the runner's
    if (vendor_timing_) images_ = ImageCache<UploadedMatrix>(reference_image_bytes(space_), kReferenceImages);
  }
  if (space_ == Space::kHost) executor_ = make_host_executor();
  const std::optional<int> gpu_minor = space_ == Space::kDevice ? current_gpu_minor() : std::nullopt;
  sandbox::SelfRestriction restriction = restriction_for(space_, gpu_minor);
  // Under compute-sanitizer (spmv-grade --memcheck; the grader sets this in
  // the environment it builds) Landlock is left out: the sanitizer's library
  // in this process stops answering its front end under it.
  if (std::getenv("SPMV_RUNNER_UNDER_SANITIZER") != nullptr) restriction.landlock = false;
  restrictions_ = sandbox::restrict_self(restriction, level_);
  if (space_ == Space::kDevice) {
    restrictions_ += gpu_minor ? "; GPU node /dev/nvidia" + std::to_string(*gpu_minor) + " only"
                               : "; every GPU node (the graded GPU's minor number is unknown)";
  }
  store_text(reply.message, (space_ == Space::kDevice ? "CUDA ready; " : "ready; ") + restrictions_);
}

void Session::load(Reply& reply) {
  if (plugin_) throw std::runtime_error("the plugin is loaded already");
  const auto path = std::filesystem::current_path() / "plugin.so";
  if (recorder_) recorder_->plugin_loading(path);  // before any of the plugin's code runs
  plugin_ = std::make_unique<Plugin>(
      Plugin::load(path, {.forbid_vendor_libraries = !vendor_timing_, .forbidden_libraries = forbidden_libraries()}));
  store_text(reply.plugin_name, plugin_->name());
  reply.memory = plugin_->memory();
  const auto kernels = plugin_->kernels();
  if (kernels.size() > kMaxKernels) {
    throw Refusal(ReplyKind::kUnusable, 0,
                  "the plugin has " + std::to_string(kernels.size()) + " kernels; at most " +
                      std::to_string(kMaxKernels) + " are supported");
  }
  for (const auto* kernel : kernels) {
    KernelEntry& entry = reply.kernels[reply.kernel_count++];
    store_text(entry.name, kernel->name);
    entry.format = kernel->format;
    store_text(entry.description, kernel->description != nullptr ? kernel->description : "");
  }
  if (space_ != Space::kProbe && memory_space_of(plugin_->memory()) != executor_->space()) {
    throw Refusal(ReplyKind::kUnusable, 0, "the plugin works in the other memory space than the grader expected");
  }
}

void Session::release_setup() {
  if (result_area_ != nullptr) ::munmap(result_area_, result_bytes_);
  result_area_ = nullptr;
  kernel_ = nullptr;
  bursts_.reset();
  area_.reset();
  uploaded_.reset();
  matrix_.reset();
}

void Session::setup(const Request& request, const int (&fds)[2], Reply& reply) {
  if (!executor_) throw std::runtime_error("kSetup before kHello");
  release_setup();
  executor_->new_kernel();
  if (fds[0] < 0 || fds[1] < 0) throw std::runtime_error("kSetup needs a matrix image and a result area");
  // No kernel name: the matrix only (for the vendor library's timing).
  const std::string name = read_text(request.kernel);
  const spmv_kernel_entry* kernel = nullptr;
  if (!name.empty()) {
    if (!plugin_) throw std::runtime_error("kSetup of a kernel before kLoad");
    kernel = plugin_->find(name);
    if (kernel == nullptr) throw Refusal(ReplyKind::kNotImplemented, 0, "the plugin has no kernel named " + name);
    if (request.format != kernel->format) {
      throw Refusal(ReplyKind::kUnusable, 0,
                    "the kernel " + name + " takes a " + format_name(kernel->format) + " view");
    }
  }
  ImageCache<UploadedMatrix>::Entry& image = images_.read(fds[0]);
  // An upload lives with its image, kept by the reference runner only: the
  // submission's code could change an upload it was given. The reference
  // runner keeps the upload alone (it checks no run against the host
  // arrays, and cuSPARSE reads the upload), so that the next image is read
  // into the memory this one's arrays held (runner_main.cpp).
  if (!image.kept) {
    image.kept =
        upload_matrix(executor_->space(), *image.matrix, vendor_timing_ ? Originals::kNotKept : Originals::kKept);
    if (vendor_timing_) image.matrix.reset();
  }
  uploaded_ = image.kept;
  matrix_ = image.matrix;
  if (uploaded_->format() != request.format) {
    throw std::runtime_error("the matrix image is not of the format asked for");
  }
  rows_ = uploaded_->rows();
  cols_ = uploaded_->cols();
  result_bytes_ = result_area_bytes(rows_);
  void* area = ::mmap(nullptr, result_bytes_, PROT_READ | PROT_WRITE, MAP_SHARED, fds[1], 0);
  if (area == MAP_FAILED) throw std::runtime_error("mapping the result area failed");
  result_area_ = static_cast<std::uint32_t*>(area);
  area_ = std::make_unique<LaunchArea>(*executor_, *uploaded_, kernel, rows_, cols_);
  check_cuda(executor_->synchronize(), "the upload");
  kernel_ = kernel;
  reply.status = 0;
}

void Session::begin_recording() {
  if (!recorder_) return;
  recorder_->set_recording(true);
  recorder_->begin();
}

void Session::end_recording(Reply& reply) {
  if (!recorder_) {
    reply.kernels_launched = -1;
    store_text(reply.recorder_note, "no launch records in host memory");
    return;
  }
  const LaunchRecording recording = recorder_->end();
  reply.kernels_launched = recording.recorded ? static_cast<std::int32_t>(recording.kernels.size()) : -1;
  reply.span_ms = recording.span_ms;
  store_text(reply.foreign_kernel, recording.foreign_kernel);
  store_text(reply.recorder_note, recording.note);
}

void Session::copy_y_to_slot(int slot) const {
  if (slot < 0 || slot >= kSlots) throw std::runtime_error("no such result slot");
  area_->copy_slot(result_area_ + static_cast<std::size_t>(slot) * slot_words(rows_));
}

void Session::run(const Request& request, Reply& reply) {
  if (kernel_ == nullptr) throw std::runtime_error("kRun before kSetup");
  area_->prepare(request.seed);
  begin_recording();
  const LaunchStatus launched = area_->launch();
  end_recording(reply);
  check_launch(launched);
  copy_y_to_slot(request.slot);
  // x after every run (the next run writes it afresh); the matrix's arrays,
  // whose comparison copies each back, when asked for: after a row's first
  // and last runs, a change to the matrix staying.
  std::string names;
  for (const auto& name : area_->modified_inputs(request.check_inputs != 0)) {
    names += (names.empty() ? "" : ", ") + name;
  }
  store_text(reply.modified, names);
}

// Bursts of the set-up kernel, or, with none set up (before the plugin is
// loaded), links without a launch: the runner's own cost. The plugin's
// host code runs here, while its launches are captured, and never again in
// a burst.
void Session::chain(const Request& request, Reply& reply) {
  if (!area_) throw std::runtime_error("kChain before kSetup");
  bursts_.reset();
  if (recorder_) {
    recorder_->set_recording(false);  // no kernel records in a burst, on either side
    recorder_->watch_calls(true);
  }
  try {
    bursts_ = std::make_unique<Bursts>(*executor_, *area_, request.links, request.keep);
  } catch (const CaptureError& e) {
    if (recorder_) recorder_->watch_calls(false);
    if (e.status() != SPMV_SUCCESS) check_launch({e.status(), 0});
    const std::string call = recorder_ ? recorder_->failed_call() : "";
    throw Refusal(
        ReplyKind::kNotCapturable, e.code(),
        (call.empty() ? std::string("a call in the launch") : call + " in the launch") + " failed with " + e.what());
  }
  if (recorder_) recorder_->watch_calls(false);
  reply.links = request.links;
  reply.kept = bursts_->kept_pairs();
}

void Session::burst(const Request& request, Reply& reply) {
  if (!bursts_) throw std::runtime_error("kBurst before kChain");
  reply.links = bursts_->links();
  try {
    reply.ms = bursts_->run(request.seed, request.empty == 0,
                            std::span<std::uint64_t>(reply.digests, static_cast<std::size_t>(reply.links)));
  } catch (const CaptureError& e) {  // on the host a launch's status shows in its burst
    check_launch({e.status(), 0});
    throw;
  }
}

void Session::keep_link(const Request& request, Reply&) {
  if (!bursts_) throw std::runtime_error("kKeepLink before kChain");
  bursts_->keep_link(request.link, request.slot);
}

void Session::copy_kept(const Request& request, Reply&) {
  if (!bursts_) throw std::runtime_error("kCopyKept before kChain");
  const std::size_t words = slot_words(rows_);
  bursts_->copy_kept(request.slot, result_area_ + kPreviousLinkSlot * words, result_area_ + kLinkSlot * words);
}

void Session::cusparse(const Request& request, Reply& reply) {
#ifdef SPMV_RUNNER_CUSPARSE
  if (!uploaded_ || uploaded_->format() != SPMV_FORMAT_CSR) throw std::runtime_error("kCusparse needs a CSR setup");
  if (executor_->space() != MemorySpace::kDevice) throw std::runtime_error("no cuSPARSE on the host");
  std::vector<float> x(static_cast<std::size_t>(cols_));
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::uint32_t bits = x_bits(request.seed, i);
    std::memcpy(&x[i], &bits, sizeof bits);
  }
  const CusparseTiming timing = time_cusparse_csr(*static_cast<const spmv_csr_view*>(uploaded_->view()), x, *executor_,
                                                  {request.cusparse_runs, 100000, 3, request.cusparse_min_ms});
  if (!timing.timed) throw std::runtime_error(timing.note);
  reply.ms = timing.timing.median_ms;
  reply.samples = timing.timing.samples;
#else
  static_cast<void>(request);
  static_cast<void>(reply);
  throw std::runtime_error("this runner has no vendor library");
#endif
}

}  // namespace spmv::runner
