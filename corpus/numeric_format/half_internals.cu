// The raw member `__x`: HIP keeps it protected in `__half` and `__nv_bfloat16`'s counterpart (and
// HIP 5.7's bfloat16 has none), but CUDA's `__nv_fp8_e4m3` and HIP's `__hip_fp8_e4m3` both expose
// their raw byte as `__x`: only the half-type reads are findings. Written for porter.
#include <cuda_fp16.h>  // expect: API005
#include <cuda_bf16.h>  // expect: API005
#include <cuda_fp8.h>  // expect: NUM001

__global__ void raw_bits(const __half* h, const __nv_bfloat16* b, unsigned short* out) {  // expect: API003
  out[0] = h[threadIdx.x].__x;  // expect: NUM004
  out[1] = b[threadIdx.x].__x;  // expect: NUM004
}

__global__ void fp8_bytes(const float* in, unsigned char* out) {
  __nv_fp8_e4m3 q(in[threadIdx.x]);  // expect: NUM001
  out[threadIdx.x] = q.__x;
}
