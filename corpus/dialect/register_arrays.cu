// corpus: nvcc
// `register` in device code, as exllamav2's MLP softmax (`register float f[128];`) and exllama v3's
// GEMM fragments (`register FragA frag_a[...]`) write it: nvcc compiles it under -std=c++17,
// hip-clang stops (C++17 removed the specifier). Removing it changes nothing. Written for porter.
#include <cuda_runtime.h>  // expect: API005

template <typename Frag, int N>
__device__ float sum_fragments(const Frag* in) {
  register Frag frags[N];  // expect: DLC001
  for (register int i = 0; i < N; ++i) frags[i] = in[i];  // expect: DLC001
  float total = 0.0f;
  for (int i = 0; i < N; ++i) total += frags[i];
  return total;
}

__global__ void row_softmax(float* x, int cols) {
  register float values[8];  // expect: DLC001
  register const int row = blockIdx.x;  // expect: DLC001
  float peak = -1e30f;
  for (int i = 0; i < 8; ++i) {
    values[i] = threadIdx.x * 8 + i < cols ? x[row * cols + threadIdx.x * 8 + i] : -1e30f;
    peak = fmaxf(peak, values[i]);
  }
  float sum = 0.0f;
  for (int i = 0; i < 8; ++i) sum += values[i] = __expf(values[i] - peak);
  // the word register in a comment, and in a string, is not the specifier
  if (threadIdx.x * 8 < cols) x[row * cols + threadIdx.x * 8] = values[0] / sum + sum_fragments<float, 2>(values) * 0.0f;
}
