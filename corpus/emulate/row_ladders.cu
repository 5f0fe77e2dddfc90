// corpus: nvcc
// Verify case for porter's CPU device: a row maximum, one row of 32 threads to a block (the
// `c += 32` stride and the 32-thread launch say so), its butterfly from 16. On a 64-lane
// wavefront the block fills half of one and lanes 32-63 do not run: right as written, since no
// step leaves the row. planted/row_max_ladder_32.cu is the HIP form TileLang's reduction had, a
// butterfly from 32 written for CDNA's wavefront: it reads lanes that do not run there. Written
// for porter.
#include <math.h>

__global__ void row_max(const float* x, float* y, int cols) {
  float v = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += 32) v = fmaxf(v, x[blockIdx.x * cols + c]);
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, o));  // expect: SYN001 MSK001
  if (threadIdx.x == 0) y[blockIdx.x] = v;
}
