// corpus: nvcc
// Warp votes and the masks they return: compaction, leader election, lane-below counts.
#include <cstdint>

__device__ int compact(const float* in, float* out, int* counter, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % warpSize;
  const bool keep = i < n && in[i] > 0.0f;
  unsigned int votes = __ballot_sync(0xffffffffu, keep);  // expect: MSK002 MSK001 SYN001
  const unsigned below = (1u << lane) - 1;  // expect: MSK004
  const int rank = __popc(votes & below);  // expect: MSK003
  const int total = __popc(votes);  // expect: MSK003
  int base = 0;
  const int leader = __ffs(votes) - 1;  // expect: MSK003
  if (lane == leader) base = atomicAdd(counter, total);
  base = __shfl_sync(votes, base, leader);  // expect: SYN001
  if (keep) out[base + rank] = in[i];
  return total;
}

__device__ bool whole_warp_agrees(bool pred) {
  const uint32_t active = __activemask();  // expect: MSK002 SYN001
  return __ballot_sync(active, pred) == 0xFFFFFFFF;  // expect: SYN001 MSK001
}

__device__ int active_lanes() {
  return __popc(__activemask());  // expect: MSK003 SYN001
}

__device__ unsigned long long lane_bit_64(int lane) {
  return 1ull << lane;
}
