// HIP code reading `__x` of HIP's own types: written and compiled for HIP, so nothing of CUDA's
// layout is assumed (AMD's own sampling kernels fill FP8 vectors this way). Written for porter.
#include <hip/hip_runtime.h>
#include <hip/hip_fp8.h>

#define FP8 __hip_fp8_e4m3_fnuz

__device__ void fill_pair(__hip_fp8x2_e4m3_fnuz& pair, FP8 value) {
  pair.__x = (__hip_fp8x2_storage_t(value.__x) << 8) | __hip_fp8x2_storage_t(value.__x);
}
