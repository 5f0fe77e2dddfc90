// corpus: nvcc
// Verify case for porter's CPU device: a 32×32 tile's edge that is also the width of the block's
// rows. TILE is both edges of `tile[TILE][TILE + 1]`, so its definition stays at 32 (doubled, the
// tile would be four times the size); the block is ROWS rows of TILE threads (`blockIdx.x * ROWS +
// threadIdx.x / TILE`, launched with ROWS * TILE threads), each row reduced by a
// `__shfl_down_sync` ladder and copied through the tile. TILE is then the rows' width, right as
// written where two rows share a 64-lane wavefront: porter keeps it, as it keeps a literal 32, and
// gives the ladder a width of 32. Before, porter widened each warp use of TILE on its own (the
// definition being vetoed): lane and warp at 64 beside a row index still counted in rows of 32, so
// half of each block's rows were never summed (planted/tile_rows_widened.cu). Written for porter.
#define TILE 32
#define ROWS 8

__global__ void tile_row_sums(const float* x, float* y, float* head, int cols) {
  __shared__ float tile[TILE][TILE + 1];
  const int warp = threadIdx.x / TILE;
  const int lane = threadIdx.x % TILE;
  const int row = blockIdx.x * ROWS + warp;
  float s = 0.0f;
  for (int c = lane; c < cols; c += TILE) s += x[row * cols + c];
  tile[warp][lane] = x[row * cols + lane];
  for (int offset = 16; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffff, s, offset);  // expect: SYN001 WRP016 MSK001
  if (lane == 0) y[row] = s;
  __syncthreads();
  head[row * TILE + lane] = tile[warp][TILE - 1 - lane];
}

#if !defined(PORTER_EMULATOR)  // the host side, which porter's CPU device does not build
void launch_tile_row_sums(const float* x, float* y, float* head, int rows, int cols) {
  tile_row_sums<<<rows / ROWS, ROWS * TILE>>>(x, y, head, cols);  // expect: API006
}
#endif
