// Votes through the project's own wrappers (a port's shim header, torch's WARP_BALLOT): the mask a
// wrapper hands on is a lane mask all the same, and 32 bits of it lose lanes 32-63 on a wavefront.
// Each block counts, per kept element, the kept elements before it in the block.

#define VOTE_ALL(predicate) __ballot_sync(0xffffffff, (predicate))  // expect: MSK001 SYN001

__device__ __forceinline__ unsigned warp_vote(bool predicate) {  // expect: MSK002
  return __ballot_sync(0xffffffff, predicate);  // expect: MSK001 SYN001
}

__global__ void ranks_in_block(const int* flags, int* ranks, int* totals) {
  __shared__ int warp_counts[32];
  int lane = threadIdx.x % 32;  // expect: WRP001
  int warp = threadIdx.x / 32;  // expect: WRP001
  bool keep = flags[blockIdx.x * blockDim.x + threadIdx.x] != 0;
  unsigned votes = warp_vote(keep);  // expect: MSK002
  unsigned again = VOTE_ALL(keep);  // expect: MSK002
  unsigned below = votes & ((1u << lane) - 1);  // expect: MSK004 MSK002
  if (lane == 0) warp_counts[warp] = __popc(again);  // expect: MSK003
  __syncthreads();
  int offset = 0;
  for (int w = 0; w < warp; ++w) offset += warp_counts[w];
  ranks[blockIdx.x * blockDim.x + threadIdx.x] = keep ? offset + __popc(below) : -1;  // expect: MSK003
  if (threadIdx.x == 0) {
    int total = 0;
    for (int w = 0; w < blockDim.x / 32; ++w) total += warp_counts[w];  // expect: WRP001
    totals[blockIdx.x] = total;
  }
}
