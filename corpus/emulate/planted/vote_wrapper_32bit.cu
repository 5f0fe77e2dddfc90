// A planted HIP port of ../vote_wrappers.cu: the widths are HIP's and the masks are 64 bits wide
// everywhere but in the shim's return type, which cuts each vote to lanes 0-31. Right at 32 lanes;
// at 64 the elements of lanes 32-63 are ranked as if no lane above 31 kept one.
#include <hip/hip_runtime.h>

#define VOTE_ALL(predicate) __ballot((predicate))

__device__ __forceinline__ unsigned warp_vote(bool predicate) {  // expect: MSK002
  return __ballot(predicate);
}

__global__ void ranks_in_block(const int* flags, int* ranks, int* totals) {
  __shared__ int warp_counts[64];
  int lane = threadIdx.x % warpSize;
  int warp = threadIdx.x / warpSize;
  bool keep = flags[blockIdx.x * blockDim.x + threadIdx.x] != 0;
  unsigned long long votes = warp_vote(keep);
  unsigned long long again = VOTE_ALL(keep);
  unsigned long long below = votes & ((1ull << lane) - 1);
  if (lane == 0) warp_counts[warp] = __popcll(again);
  __syncthreads();
  int offset = 0;
  for (int w = 0; w < warp; ++w) offset += warp_counts[w];
  ranks[blockIdx.x * blockDim.x + threadIdx.x] = keep ? offset + __popcll(below) : -1;
  if (threadIdx.x == 0) {
    int total = 0;
    for (int w = 0; w < blockDim.x / warpSize; ++w) total += warp_counts[w];
    totals[blockIdx.x] = total;
  }
}
