// A planted HIP port of ../lane_masks.cu: the widths are HIP's and the votes 64 bits wide, but the
// lane-mask helper returns HIP's __lanemask_lt() in 32 bits, which cuts each mask to lanes 0-31.
// Right at 32 lanes; at 64 the kept elements of lanes 33-63 lose the kept lanes 32 and up below
// them.
#include <hip/hip_runtime.h>

__device__ __forceinline__ unsigned lane_mask_lt() {  // expect: MSK002
  return __lanemask_lt();
}

__global__ void kept_ranks(const int* keep, int* ranks, int* totals) {
  __shared__ int kept_in_warp[64];
  const int index = blockIdx.x * blockDim.x + threadIdx.x;
  const int warp = threadIdx.x / warpSize;
  const bool kept = keep[index] != 0;
  const unsigned long long votes = __ballot(kept);
  const int below = __popcll(votes & lane_mask_lt());
  if (threadIdx.x % warpSize == 0) kept_in_warp[warp] = __popcll(votes);
  __syncthreads();
  int before = 0;
  for (int w = 0; w < warp; ++w) before += kept_in_warp[w];
  ranks[index] = kept ? before + below : -1;
  if (threadIdx.x == 0) {
    int total = 0;
    for (int w = 0; w < (int)(blockDim.x / warpSize); ++w) total += kept_in_warp[w];
    totals[blockIdx.x] = total;
  }
}
