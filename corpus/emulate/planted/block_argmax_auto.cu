// A planted port of ../reductions.cu's block_argmax: what porter's automatic fixes alone make of it
// (warp and lane ids and the ladder follow the warp width) with the read-back still `lane < 8`.
// Right at 32 lanes; at 64 the block's 4 wavefronts fill slots 0-3 and slots 4-7 are read unwritten.
#include <math.h>

__global__ void block_argmax(const float* x, int* out, int n) {
  __shared__ float best_val[8];
  __shared__ int best_idx[8];
  const int warp = threadIdx.x / warpSize, lane = threadIdx.x % warpSize;
  float best = -INFINITY;
  int index = 0;
  for (int i = blockIdx.x * 256 + threadIdx.x; i < n; i += 256 * gridDim.x) {
    if (x[i] > best) { best = x[i]; index = i; }
  }
  for (int offset = warpSize / 2; offset > 0; offset >>= 1) {
    const float other = __shfl_xor(best, offset);
    const int other_index = __shfl_xor(index, offset);
    if (other > best) { best = other; index = other_index; }
  }
  if (lane == 0) { best_val[warp] = best; best_idx[warp] = index; }
  __syncthreads();
  if (warp == 0) {
    best = lane < 8 ? best_val[lane] : -INFINITY;  // expect: WRP012
    index = lane < 8 ? best_idx[lane] : 0;  // expect: WRP012
    for (int offset = 4; offset > 0; offset >>= 1) {
      const float other = __shfl_xor(best, offset);
      const int other_index = __shfl_xor(index, offset);
      if (other > best) { best = other; index = other_index; }
    }
    if (lane == 0) out[blockIdx.x] = index;
  }
}
