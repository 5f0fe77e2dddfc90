// corpus: broken
// Real code often parses with ERROR nodes: macros tree-sitter cannot expand, a missing brace.
#include <cuda_runtime.h>  // expect: API005

#define KERNEL_LOOP(i, n) for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)
#define DISPATCH(T, ...) [&] { using scalar_t = T; __VA_ARGS__(); }()

template <typename T>
__global__ void relu(T* x, int n) {
  KERNEL_LOOP(i, n) { x[i] = x[i] > T(0) ? x[i] : T(0); }
}

void launch(float* x, int n, cudaStream_t s) {  // expect: API003
  DISPATCH(float, [&] { relu<scalar_t><<<(n + 255) / 256, 256, 0, s>>>(x, n); });  // expect: API006
  cudaStreamSynchronize(s);  // expect: API001
  if (n > 0 { cudaDeviceSynchronize(); }  // expect: API001
  cudaError_t e = cudaGetLastError(;  // expect: API003 API001
}
