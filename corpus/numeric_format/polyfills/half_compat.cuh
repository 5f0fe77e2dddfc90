// corpus: project
// The project's own half2 comparisons for CUDA before 12.0, whose cuda_fp16.h lacks the `_mask`
// forms (llama.cpp's common.cuh writes `__hgt2_mask` so). hipcc leaves CUDART_VERSION undefined, so
// the first test holds there too and ROCm builds get the project's function: its uses need nothing.
// The second is kept from ROCm (`__HIP_PLATFORM_AMD__`), the third from hipcc's device pass, which
// defines no `__CUDA_ARCH__` (flashinfer's fallbacks for sm_75 are so): their uses stop hipcc.
#pragma once
#include <cuda_fp16.h>  // expect: API005
#include <cstdint>

#define PROJECT_CUDART_HMASK 12000  // CUDA 12.0: the first with the `_mask` comparisons

#if CUDART_VERSION < PROJECT_CUDART_HMASK  // expect: ARC003
static __device__ __forceinline__ uint32_t __hgt2_mask(const half2 a, const half2 b) {
  const uint32_t low = 0x0000FFFF * (__low2float(a) > __low2float(b));
  const uint32_t high = 0xFFFF0000 * (__high2float(a) > __high2float(b));
  return low | high;
}
#endif

#if !defined(__HIP_PLATFORM_AMD__) && CUDART_VERSION < 12000
static __device__ __forceinline__ uint32_t __hlt2_mask(const half2 a, const half2 b) {
  const uint32_t low = 0x0000FFFF * (__low2float(a) < __low2float(b));
  const uint32_t high = 0xFFFF0000 * (__high2float(a) < __high2float(b));
  return low | high;
}
#endif

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800  // expect: ARC001
static __device__ __forceinline__ uint32_t __hge2_mask(const half2 a, const half2 b) {
  const uint32_t low = 0x0000FFFF * (__low2float(a) >= __low2float(b));
  const uint32_t high = 0xFFFF0000 * (__high2float(a) >= __high2float(b));
  return low | high;
}
#endif
