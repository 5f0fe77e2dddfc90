// corpus: nvcc
// A block-wide sum written the classic way: per-warp shuffles, then one warp over the partials.
#include <cuda_runtime.h>  // expect: API005

#define WARP_SIZE 32  // never used: a warp width by its name only, so no finding
#define FULL_MASK 0xffffffffu  // expect: MSK001

__device__ float warp_reduce(float v) {
  for (int offset = 16; offset > 0; offset /= 2) {  // expect: WRP002
    v += __shfl_down_sync(FULL_MASK, v, offset);  // expect: SYN001
  }
  return v;
}

__global__ void block_sum(const float* in, float* out, int n) {
  __shared__ float partial[32];
  const int tid = threadIdx.x;
  const int lane = tid & 31;  // expect: WRP001
  const int warp = tid >> 5;  // expect: WRP001
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + tid; i < n; i += gridDim.x * blockDim.x) v += in[i];
  v = warp_reduce(v);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  const int warps = blockDim.x / 32;  // expect: WRP001
  v = tid < warps ? partial[lane] : 0.0f;
  if (warp == 0) v = warp_reduce(v);
  if (tid == 0) atomicAdd(out, v);
}

// The first warp clears the partials, one slot per lane. Every warp operation here is a butterfly
// below 32, and nothing asks for the wavefront: on wave64 each 32-lane half is a warp of its own, the
// lane id counts to 31 and the 32 slots hold the block's 32-lane warps, as on NVIDIA. Right as
// written; only the mask must change (porter.rules.within_rows). Widened, lanes 32-63 would clear
// slots past the array.
__global__ void block_max(const float* in, float* out, int n) {
  __shared__ float partial[32];
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  if (warp == 0) partial[lane] = -1e30f;
  __syncthreads();
  float v = -1e30f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v = fmaxf(v, in[i]);
  for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, offset));  // expect: SYN001
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = partial[lane];
    for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, offset));  // expect: SYN001
    if (lane == 0) out[blockIdx.x] = v;
  }
}

void launch_block_sum(const float* in, float* out, int n, int threads) {
  const int warps_per_block = threads / 32;  // expect: WRP008
  const int blocks = (n + threads - 1) / threads;
  block_sum<<<blocks, threads, warps_per_block * sizeof(float)>>>(in, out, n);  // expect: API006
}
