// A hand port of ../reductions.cu's block_argmax, right at any warp width: warp and lane ids and
// the ladder follow warpSize, and the read-back counts the slots the block's warps fill (WRP012's
// suggested fix: 8 at 32 lanes, 4 at 64).
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
    const int warps = 8 * 32 / warpSize;
    best = lane < warps ? best_val[lane] : -INFINITY;
    index = lane < warps ? best_idx[lane] : 0;
    for (int offset = 4; offset > 0; offset >>= 1) {
      const float other = __shfl_xor(best, offset);
      const int other_index = __shfl_xor(index, offset);
      if (other > best) { best = other; index = other_index; }
    }
    if (lane == 0) out[blockIdx.x] = index;
  }
}
