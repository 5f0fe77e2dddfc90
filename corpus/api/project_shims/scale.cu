// corpus: nvcc nohipify
// Uses the names gpu_compat.h maps, and two it does not (cudaFree, cudaError_t): those two stay
// findings, since HIP has neither spelling until something maps them. Written for porter.
#include "gpu_compat.h"

__global__ void scale(__nv_bfloat162* pairs, __nv_bfloat16* singles, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) singles[i] = singles[i] + singles[i];
  if (i < n / 2) pairs[i] = pairs[i];
}

__global__ void count_nonzero(const int* flags, int* total) {
  unsigned long long votes = __ballot_sync(0xffffffffu, flags[threadIdx.x] != 0);
  if (threadIdx.x == 0) atomicAdd(total, __popcll(votes));
}

cudaError_t run(cudaStream_t stream, int n) {  // expect: API003
  void* buffer;
  cudaMalloc(&buffer, n * sizeof(__nv_bfloat16));
  scale<<<(n + 255) / 256, 256, 0, stream>>>(nullptr, static_cast<__nv_bfloat16*>(buffer), n);  // expect: API006
  cudaStreamSynchronize(stream);
  return cudaFree(buffer);  // expect: API001
}
