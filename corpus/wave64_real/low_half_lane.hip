// HIP code written on RDNA: the lane's id from `v_mbcnt_lo` alone, the count of the low 32 bits of
// the mask below the lane. Right on a 32-lane wavefront; on gfx942's 64 lanes, lanes 32-63 all read
// 32 and write one element between them. Written for porter.
#include <hip/hip_runtime.h>

__device__ __forceinline__ unsigned lane_id() {
  return __builtin_amdgcn_mbcnt_lo(~0u, 0u);  // expect: WRP023
}

__global__ void transpose_rows(const float* x, float* y, int rows) {
  const unsigned lane = lane_id();
  const int row = blockIdx.x;
  if (row < rows) y[lane * rows + row] = x[row * blockDim.x + lane];
}
