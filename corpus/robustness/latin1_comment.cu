// Comment in Latin-1: résumé du noyau, µs près.
#include <cuda_runtime.h>  // expect: API005

void copy(float* d, const float* h, size_t n) {
  cudaMemcpy(d, h, n, cudaMemcpyHostToDevice);  // expect: API001 API004
}
