// corpus: nvcc
// Occupancy hints as CUDA writes them.
#include <cuda_runtime.h>  // expect: API005

constexpr int kThreads = 128;
constexpr int kMinBlocks = 4;

__global__ void __launch_bounds__(kThreads, kMinBlocks) gemv(const float* a, const float* x, float* y, int n) {  // expect: LBD001
  int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row < n) y[row] = a[row] * x[row];
}

// one block at least: the maximum size already asks it of hip-clang (the same registers as `(1024, 4)`)
__global__ void __launch_bounds__(1024, 1) wide(float* x) { x[threadIdx.x] = 0.0f; }

__global__ void __launch_bounds__(256) plain(float* x) { x[threadIdx.x] = 1.0f; }

__global__ void __launch_bounds__(256, 2) balanced(float* x) { x[threadIdx.x] = 2.0f; }  // expect: LBD001

__global__ void uses_dynamic(float* x) {
  extern __shared__ float buffer[];
  buffer[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  x[threadIdx.x] = buffer[blockDim.x - 1 - threadIdx.x];
}

void configure(int smem_bytes) {
  cudaFuncSetAttribute(uses_dynamic, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_bytes);  // expect: API001 API004 LBD003 API009
  cudaFuncSetAttribute(uses_dynamic, cudaFuncAttributePreferredSharedMemoryCarveout, 100);  // expect: API001 API004 LBD003 API009
}
