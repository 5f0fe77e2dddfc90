// corpus: nvcc
// CUDA's 16-bit atomicCAS (sm_70), which HIP lacks: a project's own half atomicMax is built on it.
// Written for porter.
#include <cuda_fp16.h>  // expect: API005

__device__ __half atomic_max_half(__half* address, __half value) {
  unsigned short int old = *(unsigned short int*)address;
  while (__hgt(value, __ushort_as_half(old))) {
    unsigned short int assumed = old;
    old = atomicCAS((unsigned short int*)address, assumed, __half_as_ushort(value));  // expect: API012
    if (old == assumed) break;
  }
  return __ushort_as_half(old);
}

__global__ void raise_to(__half* top, const __half* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomic_max_half(top, x[i]);
}
