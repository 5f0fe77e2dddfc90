// corpus: nvcc
// A CUDA version test that hip-clang never evaluates: an `#elif` after an arm HIP takes (the shape
// of llama.cpp's half2 max: HIP's own arm first, then the CUDA 11.7 intrinsic, then a fallback for
// older toolkits). Only NVIDIA's compilers read the test, so nothing is left to decide for HIP. The
// same test where HIP reads it (as an old CUDA) is reported. Written for porter.
__device__ float2 larger(float2 a, float2 b) {
#if defined(__HIP_PLATFORM_AMD__)
  return make_float2(fmaxf(a.x, b.x), fmaxf(a.y, b.y));
#elif CUDART_VERSION >= 11070
  return make_float2(max(a.x, b.x), max(a.y, b.y));
#else
  return make_float2(a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y);
#endif
}

__device__ float smaller(float a, float b) {
#if CUDART_VERSION >= 11070  // expect: ARC003
  return min(a, b);
#else
  return a < b ? a : b;
#endif
}

__global__ void pairs(float2* x, float* y) { x[threadIdx.x] = larger(x[threadIdx.x], x[0]); y[0] = smaller(y[0], y[1]); }
