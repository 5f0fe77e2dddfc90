// corpus: nvcc
// Masks handled at full width already: nothing here may be flagged as a lane-mask problem.
#include <cstdint>

__device__ int count_votes(bool pred) {
  const unsigned long long votes = __ballot_sync(__activemask(), pred);  // expect: SYN001 SYN001
  return __popcll(votes);
}

__device__ uint32_t hash32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  return x & 0xffffffffu;
}

__device__ uint32_t bit_of(uint32_t word, int b) { return (word >> b) & 1u << 0; }

// the active mask is what the shuffle is given; the int it returns is a value, not a mask
__device__ int neighbour_index(int index) {
  int other = __shfl_down_sync(__activemask(), index, 1);  // expect: SYN001 SYN001
  return other > index ? other : index;
}
