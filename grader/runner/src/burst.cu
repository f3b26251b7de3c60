#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "spmv/core/tolerance.hpp"
#include "spmv/runner/burst.hpp"
#include "spmv/runner/chain.hpp"
#include "spmv/runner/protocol.hpp"

namespace spmv::runner {
namespace {

constexpr int kThreads = 256;
// Blocks of the digest: enough to fill an H100 or H200 twice over; it
// strides. The x derivation and the fill take a thread a word, up to
// kMaxWideBlocks (then stride): they are as fast as their memory traffic.
constexpr std::size_t kMaxBlocks = 528;
constexpr std::size_t kMaxWideBlocks = 65535;

unsigned blocks_for(std::size_t words, std::size_t max_blocks = kMaxBlocks) {
  return static_cast<unsigned>(std::clamp<std::size_t>((words + kThreads - 1) / kThreads, 1, max_blocks));
}

// The fold's terms (chain.hpp) of a matrix with more rows than columns,
// summed by all of the GPU at once rather than by x[i]'s thread alone (a
// tall matrix's x[i] takes rows / cols words: 800 for 1.6 M rows over
// 2,000 columns, where a thread for each x[i] would leave the GPU idle).
// y from y[cols] on is read in strips of `span` words: cols, or with
// fewer than kFoldColumns columns as many whole strips of cols words as a
// warp holds side by side, so that a warp reads up to 32 consecutive words
// and all the words one thread reads are of one column. A block takes
// kFoldColumns words of a strip (threadIdx.x), each over kFoldLanes lanes
// (threadIdx.y) that take consecutive strips; blockIdx.y picks the
// strips, striding. Each thread reads about kFoldLoads words; at most
// about kFoldBlocks blocks (the GPU filled a few times over) bound the
// atomics on each column's sum.
constexpr unsigned kFoldColumns = 32;
constexpr unsigned kFoldLanes = kThreads / kFoldColumns;
constexpr std::size_t kFoldLoads = 4;
constexpr std::size_t kFoldBlocks = 2048;

std::size_t fold_span(std::size_t cols) { return cols >= kFoldColumns ? cols : cols * (kFoldColumns / cols); }

dim3 fold_grid(std::size_t rows, std::size_t cols) {
  const std::size_t span = fold_span(cols);
  const std::size_t column_blocks = (span + kFoldColumns - 1) / kFoldColumns;
  const std::size_t spans = (rows - cols + span - 1) / span;
  const std::size_t span_blocks =
      std::clamp<std::size_t>((spans + kFoldLanes * kFoldLoads - 1) / (kFoldLanes * kFoldLoads), 1,
                              std::max<std::size_t>(1, kFoldBlocks / column_blocks));
  return {static_cast<unsigned>(column_blocks), static_cast<unsigned>(span_blocks)};
}

// Into folds[i] (zero before: the x derivation clears what it takes), the
// sum of fold_term(y[j], j) over j = i + cols, i + 2 cols, ... below rows:
// thread c (of `span`) sums j = cols + c, cols + c + span, ... (all of
// column c mod cols, since span is a multiple of cols), the block adds its
// threads' sums by column, then one atomicAdd (mod 2^32, the same in any
// order) per column and block.
__global__ void fold_kernel(const std::uint32_t* previous_y, std::size_t rows, std::size_t cols, std::size_t span,
                            std::uint32_t* folds) {
  const std::size_t c = blockIdx.x * static_cast<std::size_t>(kFoldColumns) + threadIdx.x;
  std::uint32_t sum = 0;
  if (c < span) {
    const std::size_t step = static_cast<std::size_t>(gridDim.y) * kFoldLanes * span;
    for (std::size_t j = cols + c + (blockIdx.y * static_cast<std::size_t>(kFoldLanes) + threadIdx.y) * span; j < rows;
         j += step) {
      sum += fold_term(previous_y[j], j);
    }
  }
  __shared__ std::uint32_t lanes[kFoldLanes][kFoldColumns];
  lanes[threadIdx.y][threadIdx.x] = sum;
  __syncthreads();
  if (threadIdx.y != 0) return;  // warp 0 adds up the block
  for (unsigned lane = 1; lane < kFoldLanes; ++lane) sum += lanes[lane][threadIdx.x];
  if (span == cols) {
    if (c < cols) atomicAdd(folds + c, sum);
    return;
  }
  // Fewer columns than a warp (one block across): the warp's sums of each
  // column added first, so each column takes one atomic a block.
  lanes[0][threadIdx.x] = sum;
  __syncwarp();
  if (threadIdx.x >= cols) return;
  for (std::size_t k = threadIdx.x + cols; k < span; k += cols) sum += lanes[0][k];
  atomicAdd(folds + threadIdx.x, sum);
}

// state[0]: the burst's seed; state[1 + k]: d_k (state[1] unused).
// Link k's x, from the seed and y_(k-1) (null for the first link): with
// `folds` (a matrix with more rows than columns, fold_kernel just before),
// y[i] plus the column's terms, which it clears for the next link's sums;
// without, the fold as chain.hpp makes it, y[i mod rows] alone.
__global__ void derive_x_kernel(std::uint32_t* x, std::size_t cols, const std::uint32_t* previous_y, std::size_t rows,
                                const std::uint64_t* state, int link, std::uint32_t* folds) {
  const std::uint64_t seed = link_seed(state[0], static_cast<std::uint64_t>(link));
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < cols;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    std::uint32_t folded = 0;
    if (folds != nullptr) {
      folded = previous_y[i] + folds[i];
      folds[i] = 0;
    } else {
      folded = fold_previous(previous_y, rows, cols, i);
    }
    x[i] = link_x_bits(seed, folded, i);
  }
}

// d_k of every link at once (blockIdx.y: k - 1), into `digests` (state + 2),
// which the graph cleared before the first link.
__global__ void digest_kernel(const std::uint32_t* history, std::size_t stride_words, std::size_t rows,
                              unsigned long long* digests) {
  const std::uint32_t* y = history + blockIdx.y * stride_words;
  unsigned long long sum = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < rows;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    sum += digest_term(y[i], i);
  }
  for (int offset = 16; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffffU, sum, offset);
  __shared__ unsigned long long warps[kThreads / 32];
  if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned long long block = 0;
    for (int w = 0; w < kThreads / 32; ++w) block += warps[w];
    atomicAdd(digests + blockIdx.y, block);
  }
}

__global__ void fill_kernel(std::uint32_t* words, std::size_t count, std::uint32_t word) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    words[i] = word;
  }
}

}  // namespace

struct Bursts::Graph {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  std::uint64_t* state = nullptr;   // device: seed, (unused), d_1 .. d_links
  std::uint32_t* folds = nullptr;   // device: each column's sum of terms (more rows than columns only)
  std::uint64_t* pinned = nullptr;  // host: the seed in, d_1 .. d_links out
  cudaEvent_t start = nullptr, stop = nullptr;
  ~Graph() {
    if (exec != nullptr) cudaGraphExecDestroy(exec);
    if (graph != nullptr) cudaGraphDestroy(graph);
    if (state != nullptr) cudaFree(state);
    if (folds != nullptr) cudaFree(folds);
    if (pinned != nullptr) cudaFreeHost(pinned);
    if (start != nullptr) cudaEventDestroy(start);
    if (stop != nullptr) cudaEventDestroy(stop);
  }
};

std::string capture_rule(int code) {
  std::string why;
  switch (static_cast<cudaError_t>(code)) {
    case cudaErrorStreamCaptureUnsupported:
      why =
          "a call that is not allowed while work is enqueued (a synchronization, an allocation or free, a "
          "copy to or from pageable host memory)";
      break;
    case cudaErrorStreamCaptureImplicit:
      why = "work on the legacy default stream (stream 0), which waits for every other stream";
      break;
    case cudaErrorStreamCaptureUnjoined: why = "work forked onto another stream and never joined back"; break;
    case cudaErrorStreamCaptureIsolation:
    case cudaErrorStreamCaptureMerge:
      why = "a wait on work of another stream that the launch did not enqueue itself";
      break;
    default: why = "a call that broke the stream's capture"; break;
  }
  return why +
         "; the contract: a launch only enqueues its work on the stream it is given, and returns "
         "without waiting for it (contract/include/spmv/contract/plugin.h)";
}

Bursts::Bursts(Executor& executor, LaunchArea& area, int links, int keep)
    : executor_(executor), area_(area), links_(links), stride_words_(history_stride_words(area.rows())) {
  if (links < 1 || links > kMaxLinks) {
    throw std::invalid_argument("a burst of " + std::to_string(links) + " links (1 to " + std::to_string(kMaxLinks) +
                                ")");
  }
  if (keep < 0 || keep > kMaxKeptPairs) {
    throw std::invalid_argument("keeping " + std::to_string(keep) + " pairs of links (0 to " +
                                std::to_string(kMaxKeptPairs) + ")");
  }
  history_ = RawBuffer(executor.space(), history_bytes(area.rows(), links));
  if (executor.space() == MemorySpace::kHost) {
    history_.fill_words(kPoisonBits);
    keep_pairs(keep);
    return;
  }
  // On the device, by a kernel: the history is up to 1 GiB.
  const std::size_t words = history_.bytes() / sizeof(std::uint32_t);
  fill_kernel<<<blocks_for(words, kMaxWideBlocks), kThreads, 0, executor.stream()>>>(
      static_cast<std::uint32_t*>(history_.data()), words, kPoisonBits);
  check_cuda(cudaGetLastError(), "poisoning a burst's history");
  check_cuda(executor.synchronize(), "poisoning a burst's history");
  keep_pairs(keep);
  if (area.has_kernel()) graph_ = capture(true);
}

// After the history, which the bursts cannot do without: as many of the
// pairs asked for as the memory left holds (halving on a failed
// allocation), at least one, since the parent copies them out when full.
void Bursts::keep_pairs(int keep) {
  for (int pairs = keep; pairs > 0; pairs /= 2) {
    try {
      kept_ = RawBuffer(executor_.space(), static_cast<std::size_t>(pairs) * 2 * kept_y_bytes());
      kept_links_.assign(static_cast<std::size_t>(pairs), 0);
      return;
    } catch (const std::exception&) {
      if (executor_.space() == MemorySpace::kDevice) static_cast<void>(cudaGetLastError());
      if (pairs == 1) throw;
    }
  }
}

std::unique_ptr<Bursts::Graph> Bursts::capture(bool with_launch) {
  auto graph = std::make_unique<Graph>();
  check_cuda(cudaMalloc(reinterpret_cast<void**>(&graph->state), (links_ + 2) * sizeof(std::uint64_t)), "cudaMalloc");
  check_cuda(cudaHostAlloc(reinterpret_cast<void**>(&graph->pinned), (links_ + 2) * sizeof(std::uint64_t), 0),
             "cudaHostAlloc");
  check_cuda(cudaEventCreate(&graph->start), "cudaEventCreate");
  check_cuda(cudaEventCreate(&graph->stop), "cudaEventCreate");
  const auto cols = static_cast<std::size_t>(area_.cols());
  const auto rows = static_cast<std::size_t>(area_.rows());
  // A fold of rows / cols words for each x[i]: summed by fold_kernel, all
  // of y at once, not by each x[i]'s thread in turn. Zero from here on:
  // each link's x derivation clears the sums it took.
  const bool tall = links_ > 1 && cols > 0 && rows > cols;
  if (tall) {
    check_cuda(cudaMalloc(reinterpret_cast<void**>(&graph->folds), cols * sizeof(std::uint32_t)), "cudaMalloc");
    check_cuda(cudaMemsetAsync(graph->folds, 0, cols * sizeof(std::uint32_t), executor_.stream()), "cudaMemsetAsync");
  }
  check_cuda(executor_.synchronize(), "before capturing a burst");

  cudaStream_t stream = executor_.stream();
  std::uint32_t* x = area_.x_words() + kXGuardWords;
  // Thread-local: what the launch call does on this thread is held to the
  // capture's rules; the plugin's other threads are not this call.
  check_cuda(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
  cudaMemcpyAsync(graph->state, graph->pinned, sizeof(std::uint64_t), cudaMemcpyHostToDevice, stream);
  cudaMemsetAsync(graph->state + 2, 0, links_ * sizeof(std::uint64_t), stream);
  spmv_status status = SPMV_SUCCESS;
  for (int link = 1; link <= links_ && status == SPMV_SUCCESS; ++link) {
    const auto* previous_y = link > 1 ? reinterpret_cast<const std::uint32_t*>(y_of(link - 1)) : nullptr;
    std::uint32_t* folds = link > 1 && tall ? graph->folds : nullptr;
    if (folds != nullptr) {
      fold_kernel<<<fold_grid(rows, cols), dim3(kFoldColumns, kFoldLanes), 0, stream>>>(previous_y, rows, cols,
                                                                                        fold_span(cols), folds);
    }
    // The last node before the launch, its state the fifth argument (as
    // the GPU fake batched_burst finds it: tests/gpu/faults).
    derive_x_kernel<<<blocks_for(cols, kMaxWideBlocks), kThreads, 0, stream>>>(x, cols, previous_y, rows, graph->state,
                                                                               link, folds);
    if (with_launch) status = area_.enqueue(y_of(link));
  }
  // Blocks per link: the links together fill the GPU about once over.
  const unsigned per_link = std::max(1U, std::min(blocks_for(rows), static_cast<unsigned>(kMaxBlocks) / links_));
  digest_kernel<<<dim3(per_link, static_cast<unsigned>(links_)), kThreads, 0, stream>>>(
      reinterpret_cast<const std::uint32_t*>(y_of(1)), stride_words_, rows,
      reinterpret_cast<unsigned long long*>(graph->state + 2));
  cudaMemcpyAsync(graph->pinned + 2, graph->state + 2, links_ * sizeof(std::uint64_t), cudaMemcpyDeviceToHost, stream);
  const cudaError_t ended = cudaStreamEndCapture(stream, &graph->graph);
  const cudaError_t left = cudaGetLastError();  // what a refused call left behind
  if (status != SPMV_SUCCESS) {
    throw CaptureError("the launch returned " + std::to_string(status) + " while its burst was captured", 0, status);
  }
  if (ended != cudaSuccess || graph->graph == nullptr) {
    const cudaError_t code = left != cudaSuccess && ended == cudaErrorStreamCaptureInvalidated ? left : ended;
    throw CaptureError(std::string(cudaGetErrorName(code)) + ": " + capture_rule(code), code, SPMV_SUCCESS);
  }
  check_cuda(cudaGraphInstantiate(&graph->exec, graph->graph, 0), "cudaGraphInstantiate");
  return graph;
}

Bursts::~Bursts() = default;

float* Bursts::y_of(int link) const {
  return static_cast<float*>(history_.data()) + static_cast<std::size_t>(link - 1) * stride_words_;
}

double Bursts::run(std::uint64_t seed, bool with_launch, std::span<std::uint64_t> digests) {
  if (digests.size() < static_cast<std::size_t>(links_)) throw std::invalid_argument("too few digests for a burst");
  if (with_launch && !area_.has_kernel()) throw std::invalid_argument("a burst with launches, and no kernel set up");
  if (executor_.space() == MemorySpace::kHost) {
    run_on_host(seed, with_launch, digests);
    return 0;
  }
  if (!with_launch && !empty_graph_) empty_graph_ = capture(false);  // the calibration's, when first asked for
  Graph& g = with_launch ? *graph_ : *empty_graph_;
  g.pinned[0] = seed;
  cudaStream_t stream = executor_.stream();
  check_cuda(cudaEventRecord(g.start, stream), "cudaEventRecord");
  check_cuda(cudaGraphLaunch(g.exec, stream), "cudaGraphLaunch");
  check_cuda(cudaEventRecord(g.stop, stream), "cudaEventRecord");
  check_cuda(executor_.synchronize(), "a burst");
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, g.start, g.stop), "cudaEventElapsedTime");
  std::copy(g.pinned + 2, g.pinned + 2 + links_, digests.begin());
  return ms;
}

void Bursts::run_on_host(std::uint64_t seed, bool with_launch, std::span<std::uint64_t> digests) {
  auto* x = area_.x_words() + kXGuardWords;
  const auto cols = static_cast<std::size_t>(area_.cols());
  const auto rows = static_cast<std::size_t>(area_.rows());
  for (int link = 1; link <= links_; ++link) {
    const auto* previous_y = link > 1 ? reinterpret_cast<const std::uint32_t*>(y_of(link - 1)) : nullptr;
    for (std::size_t i = 0; i < cols; ++i) x[i] = link_x_word(seed, link, previous_y, rows, cols, i);
    const spmv_status status = with_launch ? area_.enqueue(y_of(link)) : SPMV_SUCCESS;
    if (status != SPMV_SUCCESS) {
      throw CaptureError("the launch returned " + std::to_string(status) + " in a burst", 0, status);
    }
  }
  for (int link = 1; link <= links_; ++link) {
    digests[static_cast<std::size_t>(link - 1)] =
        digest_of(std::span<const std::uint32_t>(reinterpret_cast<const std::uint32_t*>(y_of(link)), rows));
  }
}

std::size_t Bursts::kept_y_bytes() const { return static_cast<std::size_t>(area_.rows()) * sizeof(float); }

void Bursts::keep_link(int link, int pair) {
  if (link < 1 || link > links_) throw std::invalid_argument("no link " + std::to_string(link) + " in the burst");
  if (pair < 0 || static_cast<std::size_t>(pair) >= kept_links_.size()) {
    throw std::invalid_argument("no kept pair " + std::to_string(pair));
  }
  const std::size_t bytes = kept_y_bytes();
  const std::size_t at = static_cast<std::size_t>(pair) * 2 * bytes;
  const auto offset_of = [&](int of) { return static_cast<std::size_t>(of - 1) * stride_words_ * sizeof(float); };
  if (link > 1) kept_.copy_from(history_, bytes, offset_of(link - 1), at);
  kept_.copy_from(history_, bytes, offset_of(link), at + bytes);
  kept_links_[static_cast<std::size_t>(pair)] = link;
}

void Bursts::copy_kept(int pair, std::uint32_t* previous_slot, std::uint32_t* slot) const {
  if (pair < 0 || static_cast<std::size_t>(pair) >= kept_links_.size() ||
      kept_links_[static_cast<std::size_t>(pair)] == 0) {
    throw std::invalid_argument("no kept pair " + std::to_string(pair));
  }
  const auto rows = static_cast<std::size_t>(area_.rows());
  const std::size_t bytes = kept_y_bytes();
  const std::size_t at = static_cast<std::size_t>(pair) * 2 * bytes;
  const auto copy = [&](std::uint32_t* to, std::size_t from) {
    std::fill(to, to + kYGuardWords, kGuardBits);
    std::fill(to + kYGuardWords + rows, to + 2 * kYGuardWords + rows, kGuardBits);
    kept_.copy_to_host(to + kYGuardWords, bytes, from);
  };
  if (kept_links_[static_cast<std::size_t>(pair)] > 1) copy(previous_slot, at);
  copy(slot, at + bytes);
}

}  // namespace spmv::runner
