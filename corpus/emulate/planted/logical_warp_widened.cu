// A planted port of ../logical_warp.cu as porter made it before it knew a logical warp (porter at
// 5bb0927): WRP006 made the project's `#define WARP_SIZE 32` the wavefront's width (PORTER_WARP_SIZE,
// here the CPU device's width) and MSK001 the mask all lanes. Right at 32 lanes; at 64 each warp sums
// two blocks' values under the first block's scale, and the blocks past the grid's half stay unwritten.
#if defined(PORTER_EMULATOR)
#define WARP_SIZE PORTER_EMULATOR  // the width under test, as PORTER_WARP_SIZE gives it there
#else
#define WARP_SIZE 64  // PORTER_WARP_SIZE on gfx90a and gfx942, for a compile outside the CPU device
#endif
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
  for (int offset = width / 2; offset > 0; offset >>= 1) x += __shfl_xor_sync(~0ull, x, offset, width);  // expect: SYN001
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
