// corpus: nvcc
// atomicAdd of 16-bit floats, which CUDA overloads and HIP does not (exllamav2's GEMM kernels add
// half2 results this way; their ROCm branch defines the overloads). Written for porter.
#include <cuda_fp16.h>  // expect: API005
#include <cuda_bf16.h>  // expect: API005

__global__ void add_partials(half2* out, const half2* partials, __half* total, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicAdd(out + (i & 7), partials[i]);  // expect: NUM005
  atomicAdd(&total[i & 3], __low2half(partials[i]));  // expect: NUM005
}

__global__ void add_bf16(__nv_bfloat16* sums, const float* x, float* check, int n) {  // expect: API003
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  atomicAdd(sums, __float2bfloat16(x[i]));  // expect: NUM005
  atomicAdd(check, x[i]);
}
