// Verify case for porter's CPU device: a 32 that is a tile's shape, not a warp's width. A 64-wide
// tile of half-pairs is 32 pairs wide (`kCols / 2`); each of 256 threads loads a pair at column
// `threadIdx.x % (kCols / 2)` and row `threadIdx.x / (kCols / 2)`, the block stages 8 rows per
// step, and each thread of the first 64 sums one column. Real code of this shape: llama.cpp's conv2d
// tile loads, in a file with warp-level code beside them (here warp_max). No warp is involved in
// the tile, so its result is the same at any wavefront width; a port that reads `kCols / 2` as a
// warp width (planted/tile_columns_widened.cu) writes pairs past each row's end.
constexpr int kCols = 64;
constexpr int kRows = 32;
constexpr int kThreads = 256;

__global__ void tile_column_sums(const float* in, float* out) {
  __shared__ float tile[kRows][kCols];
  const int t = threadIdx.x;
  const int pair = threadIdx.x % (kCols / 2);
  for (int row = threadIdx.x / (kCols / 2); row < kRows; row += kThreads / (kCols / 2)) {
    const float* source = in + (blockIdx.x * kRows + row) * kCols;
    tile[row][2 * pair] = source[2 * pair];
    tile[row][2 * pair + 1] = source[2 * pair + 1] * 0.5f;
  }
  __syncthreads();
  if (t < kCols) {
    float sum = 0.0f;
    for (int row = 0; row < kRows; ++row) sum += tile[row][t] * (row + 1);
    out[blockIdx.x * kCols + t] = sum;
  }
}

// Warp-level code in the same file: each warp's maximum, a butterfly from 16 (porter widens it).
__global__ void warp_max(const float* in, float* out) {
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, offset));  // expect: MSK001 SYN001
  if (threadIdx.x % 32 == 0) atomicMax((int*)&out[blockIdx.x], __float_as_int(fmaxf(v, 0.0f)));
}
