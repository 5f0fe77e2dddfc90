// corpus: nvcc
// A shuffle wrapper whose mask parameter is 32 bits (the shape of a real PyTorch extension's
// at::Half overloads): every caller's 64-bit mask is cut to 32 bits, and HIP 6.2+ refuses it with
// "The mask must be a 64-bit integer". Written for porter.
template <typename T>
__device__ __forceinline__ T shuffle_down(const unsigned mask, T value, unsigned delta) {  // expect: MSK002
  return __shfl_down_sync(mask, value, delta);  // expect: SYN001
}

__global__ void row_max(const float* x, float* out) {
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v = fmaxf(v, shuffle_down(0xffffffffu, v, offset));  // expect: MSK001
  if (threadIdx.x % warpSize == 0) out[blockIdx.x * (blockDim.x / warpSize) + threadIdx.x / warpSize] = v;
}
