// corpus: nvcc
// Ranks of the kept elements of each block, from PTX's lane-mask registers, written for 32-lane
// warps: a lane's rank in its warp is the kept lanes below it (`%lanemask_lt`, read through a
// helper as cub's LaneMaskLt() and many projects' headers write it, or `%lanemask_le` inline), after
// the kept elements of the warps before it. A block's ranks do not depend on the warp width, so a
// right port gives the same ranks at 64 lanes; there the masks are the wavefront's 64 lanes, and a
// mask kept in 32 bits drops lanes 32-63 (the planted port, planted/lane_masks_32bit.cu). Written
// for porter.

__device__ __forceinline__ unsigned lane_mask_lt() {  // expect: MSK002
  unsigned mask;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));  // expect: ASM001
  return mask;
}

__global__ void kept_ranks(const int* keep, int* ranks, int* totals) {
  __shared__ int kept_in_warp[32];
  const int index = blockIdx.x * blockDim.x + threadIdx.x;
  const int warp = threadIdx.x / 32;  // expect: WRP001
  const bool kept = keep[index] != 0;
  const unsigned votes = __ballot_sync(0xffffffff, kept);  // expect: MSK002 SYN001 MSK001
  const int below = __popc(votes & lane_mask_lt());  // expect: MSK003
  if (threadIdx.x % 32 == 0) kept_in_warp[warp] = __popc(votes);  // expect: WRP001 MSK003
  __syncthreads();
  int before = 0;
  for (int w = 0; w < warp; ++w) before += kept_in_warp[w];
  ranks[index] = kept ? before + below : -1;
  if (threadIdx.x == 0) {
    int total = 0;
    for (int w = 0; w < (int)(blockDim.x / 32); ++w) total += kept_in_warp[w];  // expect: WRP001
    totals[blockIdx.x] = total;
  }
}

// The same ranks from `%lanemask_le` read inline, and a check that the lanes at or below and the
// lanes above a lane split its warp's votes: 0 for every thread, at any width.
__global__ void kept_ranks_inline(const int* keep, int* ranks, int* split_errors) {
  __shared__ int kept_in_warp[32];
  const int index = blockIdx.x * blockDim.x + threadIdx.x;
  const int warp = threadIdx.x / 32;  // expect: WRP001
  const bool kept = keep[index] != 0;
  const unsigned votes = __ballot_sync(0xffffffff, kept);  // expect: MSK002 SYN001 MSK001
  unsigned at_or_below;
  unsigned above;
  asm volatile("mov.u32 %0, %%lanemask_le;" : "=r"(at_or_below));  // expect: ASM001
  asm volatile("mov.u32 %0, %%lanemask_gt;" : "=r"(above));  // expect: ASM001
  if (threadIdx.x % 32 == 0) kept_in_warp[warp] = __popc(votes);  // expect: WRP001 MSK003
  __syncthreads();
  int before = 0;
  for (int w = 0; w < warp; ++w) before += kept_in_warp[w];
  ranks[index] = kept ? before + __popc(votes & at_or_below) - 1 : -1;  // expect: MSK003
  split_errors[index] = __popc(votes & at_or_below) + __popc(votes & above) - __popc(votes);  // expect: MSK003 MSK003 MSK003
}
