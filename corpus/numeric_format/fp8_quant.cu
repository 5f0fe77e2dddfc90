// corpus: nvcc
// Per-tensor FP8 quantisation with an E4M3 saturation constant.
#include <cuda_fp8.h>  // expect: NUM001
#include <cuda_bf16.h>  // expect: API005

constexpr float kFp8Max = 448.0f;  // expect: NUM002

__global__ void quantize(const float* in, __nv_fp8_e4m3* out, float amax, int n) {  // expect: NUM001
  const float scale = kFp8Max / amax;
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __nv_fp8_e4m3(fminf(fmaxf(in[i] * scale, -448.0f), 448.0f));  // expect: NUM001 NUM002 NUM002
}

__global__ void to_e5m2(const float* in, __nv_fp8_e5m2* out, int n) {  // expect: NUM001
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __nv_fp8_e5m2(in[i]);  // expect: NUM001
}

__device__ __nv_bfloat162 relu_fma(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c) {  // expect: API003 API003 API003 API003
  return __hfma2_relu(a, b, c);  // expect: NUM003
}

__device__ int bf16_to_int(__nv_bfloat16 x) { return __bfloat162int_rz(x); }  // expect: API003 NUM003

__device__ unsigned half_bits(__half h) { return *reinterpret_cast<const unsigned short*>(&h); }  // expect: NUM004

__device__ unsigned half2_bits(__half2 h2) { return *reinterpret_cast<unsigned*>(&h2); }  // expect: NUM004

__device__ __half2 ok_ops(__half2 a, __half2 b) { return __hadd2(a, __hmul2(a, b)); }
