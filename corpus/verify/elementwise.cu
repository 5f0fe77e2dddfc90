// corpus: nvcc
// Verify cases: element-wise kernels with no warp assumptions; the port must match bit for bit.
#include <cuda_fp16.h>  // expect: API005

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void scale_half(int n, const __half* x, __half* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __float2half(__half2float(x[i]) * 0.5f);
}
