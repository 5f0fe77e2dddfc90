// Verify case for porter's CPU device: a warp of 32 that a ported project keeps on purpose. Real
// code of this shape: llama.cpp's ggml keeps `#define WARP_SIZE 32` on ROCm, hands it to every
// shuffle as the width (`template<int width = WARP_SIZE>`), and asks for the wavefront apart
// (`ggml_cuda_get_physical_warp_size()`, 64 on CDNA). A shuffle given a width of 32 works within
// 32-lane groups on any wavefront, so each logical warp below dequantises one 32-value block on
// NVIDIA and on AMD alike: porter must leave the 32 as written. The port porter made before it
// knew a logical warp (planted/logical_warp_widened.cu: the 32 became the wavefront) gives each
// 64-lane warp two blocks' values under one block's scale.
#define WARP_SIZE 32
constexpr int kBlockValues = 32;  // values per quantised block: one block per logical warp

static constexpr __device__ int physical_warp_size() {
#if defined(__HIP_PLATFORM_AMD__) && (defined(__GFX9__) || defined(__GFX8__))
  return 64;
#else
  return 32;
#endif
}

template <int width = WARP_SIZE>
__device__ __forceinline__ float warp_sum(float x) {
  for (int offset = width / 2; offset > 0; offset >>= 1) x += __shfl_xor_sync(0xffffffff, x, offset, width);  // expect: SYN001 MSK001
  return x;
}

// One logical warp per block of values: its scaled sum, and each thread block's total.
__global__ void block_sums(const float* values, const float* scales, float* sums, float* totals) {
  const int lane = threadIdx.x % WARP_SIZE;
  const int warp = threadIdx.x / WARP_SIZE;
  const int warps = blockDim.x / WARP_SIZE;
  const int block = blockIdx.x * warps + warp;
  float v = warp_sum(values[block * kBlockValues + lane] * scales[block]);
  __shared__ float partial[32];
  if (lane == 0) {
    sums[block] = v;
    partial[warp] = v;
  }
  __syncthreads();
  if (warp == 0) {
    float total = lane < warps ? partial[lane] : 0.0f;
    total = warp_sum(total);
    if (lane == 0) totals[blockIdx.x] = total + 0.0f * physical_warp_size();
  }
}

// Pairs of values packed by their logical warp's even lanes, each reading its odd neighbour
// (a quantised KV-cache writer's shape: llama-cpp-turboquant pull request 328 gave such gathers
// the width WARP_SIZE for wave64). Without a width the second logical warp of a 64-lane
// wavefront reads the first's lanes; porter gives the shuffle the logical warp's width.
__global__ void pair_sums(const float* values, float* pairs, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % WARP_SIZE;
  const float v = i < n ? values[i] : 0.0f;
  const float odd = __shfl_sync(0xffffffff, v, (lane & ~1) + 1);  // expect: SYN001 WRP016 MSK001
  if ((lane & 1) == 0 && i < n) pairs[i / 2] = v + 2.0f * odd;
}
