// corpus: nvcc
// Device memory round trip through the CUDA runtime: every runtime name here has a HIP twin.
#include <cstdio>
#include <cuda_runtime.h>  // expect: API005
#include <cuda_fp16.h>  // expect: API005

#define CHECK(call)                                                      \
  do {                                                                   \
    cudaError_t err_ = (call);  /* expect: API003 */                     \
    if (err_ != cudaSuccess) {  /* expect: API004 */                     \
      std::fprintf(stderr, "%s\n", cudaGetErrorString(err_)); /* expect: API001 */ \
    }                                                                    \
  } while (0)

__global__ void saxpy(int n, float a, const float* x, float* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void to_half(int n, const float* x, __half* y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __float2half(x[i]);
}

int run_saxpy(int n) {
  float *x = nullptr, *y = nullptr;
  size_t bytes = n * sizeof(float);
  CHECK(cudaMalloc(&x, bytes));  // expect: API001
  CHECK(cudaMalloc(&y, bytes));  // expect: API001
  CHECK(cudaMemset(y, 0, bytes));  // expect: API001
  float* host = static_cast<float*>(std::malloc(bytes));
  for (int i = 0; i < n; ++i) host[i] = float(i);
  CHECK(cudaMemcpy(x, host, bytes, cudaMemcpyHostToDevice));  // expect: API001 API004
  saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);  // expect: API006
  CHECK(cudaGetLastError());  // expect: API001
  CHECK(cudaDeviceSynchronize());  // expect: API001
  CHECK(cudaMemcpy(host, y, bytes, cudaMemcpyDeviceToHost));  // expect: API001 API004
  __half* h = nullptr;
  CHECK(cudaMallocManaged(&h, n * sizeof(__half)));  // expect: API001
  to_half<<<(n + 127) / 128, 128>>>(n, y, h);  // expect: API006
  cudaFree(x);  // expect: API001
  cudaFree(y);  // expect: API001
  cudaFree(h);  // expect: API001
  std::free(host);
  return 0;
}
