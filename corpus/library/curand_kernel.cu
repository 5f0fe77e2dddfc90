// Per-thread Philox streams with cuRAND's device API.
#include <curand_kernel.h>  // expect: LIB003

__global__ void uniform_fill(float* out, unsigned long long seed, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  curandStatePhilox4_32_10_t state;  // expect: LIB003
  curand_init(seed, i, 0, &state);  // expect: LIB003
  out[i] = curand_uniform(&state);  // expect: LIB003
}

__global__ void normal_fill(float* out, unsigned long long seed, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  curandState state;  // expect: LIB003
  curand_init(seed, i, 0, &state);  // expect: LIB003
  out[i] = curand_normal(&state);  // expect: LIB003
}
