// Sub-warp masks in a HIP kernel written on RDNA: each group of K lanes takes its K bits of the
// wavefront's ballot through a mask computed in 32 bits (the shift's type is its left operand's),
// so on a 64-lane wavefront the groups above lane 31 get no bits. The class of
// GPUOpen-LibrariesAndSDKs/HIPRT#68 (a BVH build that hung on CDNA). Written anew.
#include <hip/hip_runtime.h>
#include <cstdint>

template <uint32_t K>
__global__ void votes_before_me(const int* keep, uint32_t* counts) {
  const uint32_t index = blockIdx.x * blockDim.x + threadIdx.x;
  const uint32_t lane = threadIdx.x % warpSize;
  const uint32_t group = lane / K;
  const uint64_t group_bits = ((1u << K) - 1) << (K * group);  // expect: MSK004
  const uint64_t votes = __ballot(keep[index] != 0) & group_bits;
  const uint64_t up_to_me = votes & ((2 << lane) - 1);  // expect: MSK004
  counts[index] = __popcll(up_to_me);
}

// Not lane masks: K low bits placed by nothing, and a 4-lane group mask kept below bit 32. No warp
// operation reads the lanes, so the `& 31` only groups threads by 32, right as written: widened to
// `& 63`, the shift would pass the 32-bit mask's width.
template <uint32_t K>
__global__ void low_bits(uint32_t* out) {
  const uint32_t low = (1u << K) - 1;
  const uint32_t quad = 15u << ((threadIdx.x & 31) & ~3);
  out[threadIdx.x] = low & quad;
}

template __global__ void votes_before_me<4>(const int*, uint32_t*);
template __global__ void low_bits<4>(uint32_t*);
