// A planted port of ../tile_shapes.cu as porter made it before it told a tile's shape from a warp's
// width: `kCols / 2` became the wavefront's width (porter at 0bfa1ae wrote PORTER_WARP_SIZE, here
// warpSize). Right at 32 lanes; at 64 the pair index runs to 63, past the tile's 32 pairs: each
// row's second half is written into the next row, and the last row's past the tile.
constexpr int kCols = 64;
constexpr int kRows = 32;
constexpr int kThreads = 256;

__global__ void tile_column_sums(const float* in, float* out) {
  __shared__ float tile[kRows][kCols];
  const int t = threadIdx.x;
  const int pair = t % warpSize;
  for (int row = t / warpSize; row < kRows; row += kThreads / warpSize) {
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
