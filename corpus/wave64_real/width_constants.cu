// corpus: nvcc
// Named constants found by their uses, not their names: `SIMD_W` and `HALF_SIMD_W` come from a
// header; the same value in `BITS_PER_WORD` counts bits and must stay 32. The uses below settle
// `SIMD_W` as a warp width, so its definition in the header carries the fix and they need none.
#include "width_constants.h"

__global__ void row_sum(const float* in, float* out, const unsigned* flags, int cols) {
  int lane = threadIdx.x % SIMD_W;
  int warp = threadIdx.x / SIMD_W;
  float acc = 0.f;
  for (int c = lane; c < cols; c += SIMD_W) acc += in[c];
  for (int off = HALF_SIMD_W; off > 0; off /= 2) acc += __shfl_down_sync(0xffffffff, acc, off);  // expect: WRP002 SYN001 MSK001
  unsigned word = flags[blockIdx.x / BITS_PER_WORD];
  bool set = (word >> (blockIdx.x % BITS_PER_WORD)) & 1u;
  if ((lane + 1) > 31 && set) acc = 0.f;  // expect: WRP001
  if (lane == SIMD_W - 1) out[warp] = acc;
}

void launch_rows(const float* in, float* out, const unsigned* flags, int rows, int cols) {
  const int warps_per_block = 4;
  row_sum<<<rows, warps_per_block * SIMD_W>>>(in, out, flags, cols);  // expect: WRP008 API006
}
