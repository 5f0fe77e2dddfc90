// A planted port of ../tile_rows.cu as porter made it before it kept a tile's edge as the rows'
// width: TILE's definition stayed (a square tile's edge), but WRP001, WRP005 and WRP002 widened
// each warp use of it to the wavefront (PORTER_WARP_SIZE, here the CPU device's width) and MSK001
// the mask to all lanes, while the row index still counts ROWS rows of 32 to a block. Right at 32
// lanes; at 64 the block's 256 threads make 4 wavefronts, rows 4-7 of each block are never summed,
// and lanes 32-63 write past their row of the tile.
#if defined(PORTER_EMULATOR)
#define WARP_WIDTH PORTER_EMULATOR  // the width under test, as PORTER_WARP_SIZE gives it there
#else
#define WARP_WIDTH 64  // PORTER_WARP_SIZE on gfx90a and gfx942, for a compile outside the CPU device
#endif
#define TILE 32
#define ROWS 8

__global__ void tile_row_sums(const float* x, float* y, float* head, int cols) {
  __shared__ float tile[TILE][TILE + 1];
  const int warp = threadIdx.x / WARP_WIDTH;
  const int lane = threadIdx.x % WARP_WIDTH;
  const int row = blockIdx.x * ROWS + warp;
  float s = 0.0f;
  for (int c = lane; c < cols; c += WARP_WIDTH) s += x[row * cols + c];
  tile[warp][lane] = x[row * cols + lane];
  for (int offset = WARP_WIDTH / 2; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffffffffffffull, s, offset);  // expect: SYN001
  if (lane == 0) y[row] = s;
  __syncthreads();
  head[row * TILE + lane] = tile[warp][TILE - 1 - lane];
}
