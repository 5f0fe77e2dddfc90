// The launches of block_partials.h's kernels. Written for porter.
#include "block_partials.h"

void reduce_all(const float* x, float* y, int rows, hipStream_t stream) {
  hipLaunchKernelGGL(wave_partial_rows, dim3(rows), dim3(512), 0, stream, x, y);
  wave_partial_cols<<<rows, 256, 0, stream>>>(x, y);
  wave_partial_tiles<<<rows, 256, 0, stream>>>(x, y);
}
