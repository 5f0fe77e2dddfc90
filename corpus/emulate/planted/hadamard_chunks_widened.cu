// A planted port of ../hadamard_chunks.cu as porter made it before it kept the 32s of kernels whose
// warp operations stay within 32 lanes (porter at c8bbd64): lane, ladder and warp count widened to
// the wavefront, the chunk left at 128. Right at 32 lanes; at 64 lanes 32-63 read the next warp's
// chunk and the butterfly mixes two chunks into one.
__device__ void hadamard_128(const float* in, float* out) {
  const int t = threadIdx.x & (warpSize - 1);
  float v[4];
  for (int i = 0; i < 4; ++i) v[i] = in[t * 4 + i];
  const float s0 = v[0] + v[1], d0 = v[0] - v[1], s1 = v[2] + v[3], d1 = v[2] - v[3];
  v[0] = s0 + s1;
  v[1] = d0 + d1;
  v[2] = s0 - s1;
  v[3] = d0 - d1;
  for (int i = 1; i < warpSize; i <<= 1) {
    for (int j = 0; j < 4; ++j) {
      const float other = __shfl_xor(v[j], i);
      v[j] = (t & i) ? other - v[j] : v[j] + other;
    }
  }
  for (int i = 0; i < 4; ++i) out[t * 4 + i] = v[i] * 0.088388347648f;
}

__global__ void hadamard_chunks(const float* in, float* out, int chunks) {
  const int warps_in_grid = gridDim.x * blockDim.x / warpSize;
  for (int w = blockIdx.x * (blockDim.x / warpSize) + threadIdx.x / warpSize; w < chunks; w += warps_in_grid)
    hadamard_128(in + w * 128, out + w * 128);
}
