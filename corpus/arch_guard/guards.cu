// corpus: nvcc
// Architecture and toolkit guards as real code writes them.
#include <cuda_runtime.h>  // expect: API005
#if CUDA_VERSION >= 11000  // expect: ARC003
#include <cuda_bf16.h>  // expect: API005
#endif

__device__ __forceinline__ float load(const float* p) {
#ifdef __CUDA_ARCH__  // expect: ARC002
  return __ldg(p);
#else
  return *p;
#endif
}

__device__ float fast_exp(float x) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800  // expect: ARC001
  return __expf(x);
#else
  return expf(x);
#endif
}

__host__ __device__ int where_am_i() {
#if !defined(__CUDA_ARCH__)  // expect: ARC002
  return 0;
#else
  return 1;
#endif
}

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define ON_DEVICE 1
#endif

#ifdef __NVCC__  // expect: ARC003
#define COMPILER_NAME "nvcc"
#endif

bool use_tensor_cores(int device) {
  cudaDeviceProp prop;  // expect: API003
  cudaGetDeviceProperties(&prop, device);  // expect: API001
  return prop.major >= 8;  // expect: ARC004
}
