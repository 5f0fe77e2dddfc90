// A HIP port whose warp width comes from a list of 64-lane targets (the shape of HIPRT's BVH
// builder, GPUOpen-LibrariesAndSDKs/HIPRT#68, which had to add gfx950 to its list). Right on the
// targets listed; gfx950's device pass takes the `#else` arm's 32 on a 64-lane wavefront, and the
// lane, the ladder and the leader test below then work in halves of it. Written for porter.
#include <hip/hip_runtime.h>

#if defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__)
constexpr int kWarpSize = 64;
#else
constexpr int kWarpSize = 32;  // expect[gfx950]: WRP022
#endif

__global__ void leaf_counts(const int* nodes, int* counts, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % kWarpSize;
  int leaves = i < n && nodes[i] < 0;
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) leaves += __shfl_down(leaves, offset);
  if (lane == 0) atomicAdd(counts + blockIdx.x, leaves);
}
