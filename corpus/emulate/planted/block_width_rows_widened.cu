// A planted port of ../block_width_rows.cu as porter made it before it read `blockIdx.x *
// (blockDim.x / 32) + warp` as a warp per row: WRP001, WRP005 and WRP002 widened the kernel's 32s
// to the wavefront (PORTER_WARP_SIZE, here the CPU device's width), while the host still launches
// rows / 8 blocks of 256. Right at 32 lanes; at 64 a block takes 4 rows and rows 4-7 of each 8 are
// never written.
#if defined(PORTER_EMULATOR)
#define WARP_WIDTH PORTER_EMULATOR  // the width under test, as PORTER_WARP_SIZE gives it there
#else
#define WARP_WIDTH 64  // PORTER_WARP_SIZE on gfx90a and gfx942, for a compile outside the CPU device
#endif

__global__ void row_max(const float* x, float* y, int rows, int cols) {
  const int warp = threadIdx.x / WARP_WIDTH, lane = threadIdx.x % WARP_WIDTH;
  const int row = blockIdx.x * (blockDim.x / WARP_WIDTH) + warp;
  if (row >= rows) return;
  float m = -1e30f;
  for (int c = lane; c < cols; c += WARP_WIDTH) m = fmaxf(m, x[row * cols + c]);
  for (int o = WARP_WIDTH / 2; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffffffffffull, m, o));  // expect: SYN001
  if (lane == 0) y[row] = m;
}
