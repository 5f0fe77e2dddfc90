// A HIP port of ../reductions.cu's warp_sum_atomic written on CDNA, for 64-lane wavefronts: the
// butterfly starts at 32 and each wavefront's lane 0 of 64 adds its sum. Right on gfx9; on RDNA's
// 32 lanes the first step reads each lane's own value back (every partial sum doubled) and the
// leader test skips every other wavefront. The class of 1bit-MONSTER#746 (`__shfl_xor(s, 32)` on a
// 32-lane device). Written for porter.
#include <hip/hip_runtime.h>

__global__ void warp_sum_atomic(const float* in, float* out, int columns) {
  float v = 0.0f;
  for (int c = threadIdx.x; c < columns; c += blockDim.x) v += in[blockIdx.x * columns + c];
  for (int offset = 32; offset > 0; offset /= 2) v += __shfl_xor(v, offset);  // expect[gfx1100]: WRP015
  if ((threadIdx.x & 63) == 0) atomicAdd(&out[blockIdx.x], v);  // expect[gfx1100]: WRP015
}
