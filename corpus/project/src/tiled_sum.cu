// corpus: project
// A block-wide sum in shared memory; TILE and the include path come from compile_commands.json.
#include "tile.h"

__global__ void __launch_bounds__(TILE) tiled_sum(const float* in, float* out, int n) {
  __shared__ float partial[tile_elements()];
  int i = blockIdx.x * TILE + threadIdx.x;
  partial[threadIdx.x] = i < n ? in[i] : 0.0f;
  __syncthreads();
  for (int stride = TILE / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}
