// A HIP port of ../masks.cu written on RDNA: 64-bit votes and popcount, the lane from warpSize,
// but the group's bits and the lanes-up-to-me mask still computed in 32 bits. Right at 32 lanes;
// at 64 the groups of lanes 32-63 get no bits (GPUOpen HIPRT#68's class).
#include <hip/hip_runtime.h>
#include <cstdint>

__global__ void group_prefix_counts(const int* keep, int* counts) {
  const int index = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % warpSize;
  const int group = lane / 4;
  const uint64_t group_bits = 15u << (4 * group);  // expect: MSK004
  const uint64_t votes = __ballot(keep[index] != 0) & group_bits;
  counts[index] = __popcll(votes & ((2u << lane) - 1));  // expect: MSK004
}
