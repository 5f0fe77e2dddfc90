// corpus: nvcc
// Lane masks for groups of 4 lanes, written for 32-lane warps: how many lanes of my group, up to
// me, keep their element. The count does not depend on the warp width, so a right port gives the
// same counts at 64 lanes; the group's bits are shifted by a count built from the lane (up to 60
// on wave64), which must be computed and kept in 64 bits there (GPUOpen HIPRT#68's class).
__global__ void group_prefix_counts(const int* keep, int* counts) {
  const int index = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % 32;  // expect: WRP001
  const int group = lane / 4;
  const unsigned group_bits = 15u << (4 * group);  // expect: MSK004
  const unsigned votes = __ballot_sync(0xffffffff, keep[index] != 0) & group_bits;  // expect: MSK002 SYN001 MSK001
  counts[index] = __popc(votes & ((2u << lane) - 1));  // expect: MSK003 MSK004
}
