// corpus: nvcc
// A Hadamard transform of 128-element chunks, one chunk to a 32-lane warp, 4 values to a lane, in the
// shape of exllamav3's helpers (quant/hadamard_inner.cuh, vendored by gptqmodel): the lane is
// `threadIdx.x & 31`, a butterfly of `__shfl_xor_sync` below 32 mixes the lanes, and each warp's
// chunk starts at `warp * 128`. Every warp operation stays within 32 lanes and nothing asks for the
// wavefront, so on wave64 each 32-lane half transforms its own chunk, as one NVIDIA warp does: the
// 32s are right as written and only the mask changes (porter.rules.within_rows). Widened, lanes 32-63
// index the next warp's chunk and the butterfly mixes two chunks (planted/hadamard_chunks_widened.cu).
// Written for porter.
__device__ void hadamard_128(const float* in, float* out) {
  const int t = threadIdx.x & 31;
  float v[4];
  for (int i = 0; i < 4; ++i) v[i] = in[t * 4 + i];
  const float s0 = v[0] + v[1], d0 = v[0] - v[1], s1 = v[2] + v[3], d1 = v[2] - v[3];
  v[0] = s0 + s1;
  v[1] = d0 + d1;
  v[2] = s0 - s1;
  v[3] = d0 - d1;
  for (int i = 1; i < 32; i <<= 1) {
    for (int j = 0; j < 4; ++j) {
      const float other = __shfl_xor_sync(0xffffffff, v[j], i);  // expect: MSK001 SYN001
      v[j] = (t & i) ? other - v[j] : v[j] + other;
    }
  }
  for (int i = 0; i < 4; ++i) out[t * 4 + i] = v[i] * 0.088388347648f;  // 1 / sqrt(128)
}

__global__ void hadamard_chunks(const float* in, float* out, int chunks) {
  const int warps_in_grid = gridDim.x * blockDim.x / 32;
  for (int w = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32; w < chunks; w += warps_in_grid)
    hadamard_128(in + w * 128, out + w * 128);
}
