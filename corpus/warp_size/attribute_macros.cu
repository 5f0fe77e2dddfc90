// corpus: nvcc
// Function attributes and unroll pragmas behind the project's own macros (as CUTLASS's
// CUTLASS_DEVICE and CUTLASS_PRAGMA_UNROLL are, and FlashInfer's FLASHINFER_INLINE): tree-sitter
// cannot expand them, and without the macros' definitions each hides the loop or the whole
// function behind an ERROR node, and its half-wavefront ladder with it.
#include <cuda_runtime.h>  // expect: API005

#define KERNEL_INLINE __forceinline__ __device__
#define KERNEL_PRAGMA_UNROLL _Pragma("unroll")

KERNEL_INLINE float warp_max(float value) {
  KERNEL_PRAGMA_UNROLL
  for (int offset = 16; offset >= 1; offset /= 2) {  // expect: WRP002
    value = fmaxf(value, __shfl_xor_sync(0xffffffff, value, offset));  // expect: SYN001 MSK001
  }
  return value;
}

__global__ void row_max(const float* in, float* out) {
  float best = in[blockIdx.x * blockDim.x + threadIdx.x];
  KERNEL_PRAGMA_UNROLL
  for (int offset = 16; offset >= 1; offset /= 2) {  // expect: WRP002
    best = fmaxf(best, __shfl_down_sync(0xffffffff, best, offset));  // expect: SYN001 MSK001
  }
  if (threadIdx.x == 0) out[blockIdx.x] = warp_max(best);
}
