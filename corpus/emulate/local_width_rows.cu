// corpus: nvcc
// Verify case for porter's CPU device: a kernel's own warp-width constant that is also the width of
// its block's rows. `kWidth` is local to the kernel and sizes its lanes, warps, stride and ladder;
// the block is ROWS rows of it (`blockIdx.x * ROWS + threadIdx.x / kWidth`, launched with ROWS * 32
// threads). On a 64-lane wavefront two rows share one, and the kernel is right as written there but
// for its shuffles' reach: porter keeps `kWidth` at 32 and gives the ladder a width of 32. Before,
// porter widened `kWidth` (WRP006: its shuffles take it as their width), and with the row index still
// counting ROWS rows to a block, half of each block's rows were never summed
// (planted/local_width_rows_widened.cu). Written for porter.
#define ROWS 8

__global__ void local_width_row_sums(const float* x, float* y, int cols) {
  constexpr int kWidth = 32;
  const int lane = threadIdx.x % kWidth;
  const int warp = threadIdx.x / kWidth;
  const int row = blockIdx.x * ROWS + warp;
  float s = 0.0f;
  for (int c = lane; c < cols; c += kWidth) s += x[row * cols + c];
  for (int offset = kWidth / 2; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffff, s, offset);  // expect: SYN001 WRP016 MSK001
  if (lane == 0) y[row] = s;
}

#if !defined(PORTER_EMULATOR)  // the host side, which porter's CPU device does not build
void launch_local_width_row_sums(const float* x, float* y, int rows, int cols) {
  local_width_row_sums<<<rows / ROWS, ROWS * 32>>>(x, y, cols);  // expect: API006
}
#endif
