// A planted port of ../local_width_rows.cu as porter made it before it read a kernel's own constant
// as the rows' width: WRP006 widened `kWidth` to the wavefront (PORTER_WARP_SIZE, here the CPU
// device's width) and MSK001 the mask to all lanes, while the row index still counts ROWS rows of 32
// to a block. Right at 32 lanes; at 64 the block's 256 threads make 4 wavefronts, and rows 4-7 of
// each block are never summed.
#if defined(PORTER_EMULATOR)
#define WARP_WIDTH PORTER_EMULATOR  // the width under test, as PORTER_WARP_SIZE gives it there
#else
#define WARP_WIDTH 64  // PORTER_WARP_SIZE on gfx90a and gfx942, for a compile outside the CPU device
#endif
#define ROWS 8

__global__ void local_width_row_sums(const float* x, float* y, int cols) {
  constexpr int kWidth = WARP_WIDTH;
  const int lane = threadIdx.x % kWidth;
  const int warp = threadIdx.x / kWidth;
  const int row = blockIdx.x * ROWS + warp;
  float s = 0.0f;
  for (int c = lane; c < cols; c += kWidth) s += x[row * cols + c];
  for (int offset = kWidth / 2; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffffffffffffull, s, offset);  // expect: SYN001
  if (lane == 0) y[row] = s;
}
