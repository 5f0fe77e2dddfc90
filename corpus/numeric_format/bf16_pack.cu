// corpus: nvcc
// bf16 conversions that HIP lacks (issue 14: `__floats2bfloat162_rn` was left to a person although
// the compat header can define it from `__float22bfloat162_rn`). Written for porter.
#include <cuda_bf16.h>  // expect: API005

__global__ void pack_pairs(__nv_bfloat162* out, __nv_bfloat16* single, const float* x, int n) {  // expect: API003 API003
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  out[i] = __floats2bfloat162_rn(x[2 * i], x[2 * i + 1]);  // expect: NUM003
  single[i] = __float2bfloat16_rn(x[2 * i]);  // expect: NUM003
  out[n + i] = __float2bfloat162_rn(x[i]);  // expect: NUM003
}
