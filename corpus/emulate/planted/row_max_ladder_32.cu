// A HIP port of ../row_ladders.cu's row_max written for CDNA's 64-lane wavefront, as TileLang's
// HIP reduction was (tile-ai/tilelang#2099): its butterfly starts at 32, in a block of one row of
// 32 threads. On RDNA's 32 lanes the first step reads each lane's own value (harmless for a
// maximum); on a 64-lane wavefront it reads lanes 32-63, which do not run. porter's scan at
// gfx942 names the ladder (WRP019; WRP015 at gfx1100), and its edit starts it at 16. Written for
// porter.
#include <hip/hip_runtime.h>
#include <math.h>

__global__ void row_max(const float* x, float* y, int cols) {
  float v = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += 32) v = fmaxf(v, x[blockIdx.x * cols + c]);
  for (int o = 32; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor(v, o));  // expect: WRP019 // expect[gfx1100]: WRP015
  if (threadIdx.x == 0) y[blockIdx.x] = v;
}

#if !defined(PORTER_EMULATOR)  // the host side, which porter's CPU device does not build
void launch_row_max(const float* x, float* y, int rows, int cols) {
  hipLaunchKernelGGL(row_max, dim3(rows), dim3(32), 0, 0, x, y, cols);
}
#endif
