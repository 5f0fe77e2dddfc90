// A planted port of ../warp_rows.cu's row_sums as porter made it before it read the launch's
// `WARPS_PER_BLOCK * 32`: WRP001, WRP005 and WRP002 widened the kernel's 32s to the wavefront
// (PORTER_WARP_SIZE, here the CPU device's width) and MSK001 the mask all lanes, while the launch
// still gives the block 8 rows of 32 threads. Right at 32 lanes; at 64 the block's 256 threads
// make 4 wavefronts, `blockIdx.x * WARPS_PER_BLOCK + warp` reaches rows 0-3 of each 8, and the
// others are never summed.
#if defined(PORTER_EMULATOR)
#define WARP_WIDTH PORTER_EMULATOR  // the width under test, as PORTER_WARP_SIZE gives it there
#else
#define WARP_WIDTH 64  // PORTER_WARP_SIZE on gfx90a and gfx942, for a compile outside the CPU device
#endif
#define WARPS_PER_BLOCK 8

__global__ void row_sums(const float* x, float* y, int rows, int cols) {
  int warp = threadIdx.x / WARP_WIDTH, lane = threadIdx.x % WARP_WIDTH;
  int row = blockIdx.x * WARPS_PER_BLOCK + warp;
  if (row >= rows) return;
  float s = 0.f;
  for (int c = lane; c < cols; c += WARP_WIDTH) s += x[row * cols + c];
  for (int o = WARP_WIDTH / 2; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffffffffffull, s, o);  // expect: SYN001
  if (lane == 0) y[row] = s;
}
