// corpus: nvcc
// A block reduction for a norm written for 32 lanes: the offsets, masks and shifts that
// Luce-Org/lucebox#500 generalised to the wavefront width, with the host's warp count. Written anew.
__global__ void sum_squares(const float* x, float* out, int n) {
  __shared__ float partial[32];
  int lane = threadIdx.x & 31;  // expect: WRP001
  int warp = threadIdx.x >> 5;  // expect: WRP001
  float v = 0.f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) v += x[i] * x[i];
  for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffff, v, off);  // expect: WRP002 SYN001 MSK001
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (blockDim.x >> 5) ? partial[lane] : 0.f;  // expect: WRP001
    for (int off = 16; off > 0; off >>= 1) v += __shfl_xor_sync(0xffffffff, v, off);  // expect: WRP002 SYN001 MSK001
    if (lane == 0) *out = v;
  }
}
