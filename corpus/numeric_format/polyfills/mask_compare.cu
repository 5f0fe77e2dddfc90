// corpus: project
// Uses of the project's half2 comparisons (half_compat.cuh): the one ROCm compiles needs no
// port; the ones kept from ROCm do not compile there.
#include "half_compat.cuh"

__global__ void count_greater(const half2* a, const half2* b, uint32_t* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = __popc(__hgt2_mask(a[i], b[i]));
  }
}

__global__ void count_less(const half2* a, const half2* b, uint32_t* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = __popc(__hlt2_mask(a[i], b[i]));  // expect: NUM003
  }
}

__global__ void count_at_least(const half2* a, const half2* b, uint32_t* out, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    out[i] = __popc(__hge2_mask(a[i], b[i]));  // expect: NUM003
  }
}
