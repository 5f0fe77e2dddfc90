// corpus: nvcc
// A block reduction for a norm written for 32 lanes: the offsets, masks and shifts that
// Luce-Org/lucebox#500 generalised to the wavefront width, with the host's warp count. Its warp
// operations are butterflies below 32 and it never asks for the wavefront: on wave64 each 32-lane
// half runs as one NVIDIA warp, so its lane and warp arithmetic is right as written, and the masks
// are what must change (porter.rules.within_rows; widening is right too, and is the upstream fix's
// choice). Written anew.
__global__ void sum_squares(const float* x, float* out, int n) {
  __shared__ float partial[32];
  int lane = threadIdx.x & 31;
  int warp = threadIdx.x >> 5;
  float v = 0.f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) v += x[i] * x[i];
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffff, v, off);  // expect: MSK001 SYN001
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (blockDim.x >> 5) ? partial[lane] : 0.f;
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffff, v, off);  // expect: MSK001 SYN001
    if (lane == 0) *out = v;
  }
}
