// corpus: nvcc project
// A kernel of the project: its `__CUDA_ARCH__` value test reads the vendor header's 1300 on ROCm,
// and its FP8 type is the one the vendor header maps onto HIP's OCP type.
#include "gpu_common.cuh"

__global__ void pool_rows(const float* in, __nv_fp8_e4m3* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
#if __CUDA_ARCH__ >= 350
  float v = __ldg(in + i);
#else
  float v = in[i];
#endif
  out[i] = __nv_fp8_e4m3(v);
}

void pool_rows_launch(const float* in, __nv_fp8_e4m3* out, int n, cudaStream_t stream) {
  pool_rows<<<(n + 255) / 256, 256, 0, stream>>>(in, out, n);  // expect: API006
  cudaGetLastError();
}
