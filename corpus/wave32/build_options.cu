// corpus: project
// Branches that a build option (`-DTILE_USE_WMMA`, `-DTILE_USE_MFMA`: unknown to porter) narrows, on
// top of a platform test: never compiled for NVIDIA, so HIP code as written (the shape of
// llama.cpp's `AMD_WMMA_AVAILABLE && RDNA3` arms). The RDNA-only arm is wave32's: its ladder
// from 16 spans the whole wavefront there. The other arm is ROCm's: its launch bounds are HIP's.
#include <hip/hip_runtime.h>

__device__ float row_sum(float v) {
#if defined(__HIP_PLATFORM_AMD__) && defined(__gfx1100__) && defined(TILE_USE_WMMA)
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor(v, offset);
#endif
  return v;
}

#if defined(__HIP_PLATFORM_AMD__) && defined(TILE_USE_MFMA)
__global__ void __launch_bounds__(256, 2) tile_kernel(float* out) { out[threadIdx.x] = row_sum(1.0f); }
#endif
