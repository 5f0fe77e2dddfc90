// HIP code from the days when warpSize was a constexpr: it stops compiling under ROCm 7.
#include <hip/hip_runtime.h>

template <int Width>
__device__ float sum_width(float v) {
  for (int o = Width / 2; o > 0; o /= 2) v += __shfl_down(v, o, Width);
  return v;
}

__global__ void block_sum(const float* in, float* out) {
  __shared__ float partial[1024 / warpSize];  // expect: WRP009
  constexpr int lanes = warpSize;  // expect: WRP009
  float v = sum_width<warpSize>(in[blockIdx.x * blockDim.x + threadIdx.x]);  // expect: WRP009
  const int lane = threadIdx.x % lanes;
  if (lane == 0) partial[threadIdx.x / lanes] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (int w = 0; w < blockDim.x / warpSize; ++w) total += partial[w];
    out[blockIdx.x] = total;
  }
}
