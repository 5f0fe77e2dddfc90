// corpus: nvcc
// Verify case for porter's CPU device: a warp per row, the rows before the block counted from its
// width (`blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32`), the grid sized by the host in rows
// (`rows / 8` blocks of 256). The index is the grid's 32-thread group, whatever the block: kept at
// 32 on a 64-lane wavefront two rows share it and each is still taken alone. Widened (the port porter
// made before, planted/block_width_rows_widened.cu), a block of 256 takes 4 rows of the 8 its grid
// planned, and rows 4-7 of each 8 are never written. Written for porter.
__global__ void row_max(const float* x, float* y, int rows, int cols) {
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int row = blockIdx.x * (blockDim.x / 32) + warp;
  if (row >= rows) return;
  float m = -1e30f;
  for (int c = lane; c < cols; c += 32) m = fmaxf(m, x[row * cols + c]);
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));  // expect: SYN001 MSK001
  if (lane == 0) y[row] = m;
}

#if !defined(PORTER_EMULATOR)  // the host side, which porter's CPU device does not build
void launch_row_max(const float* x, float* y, int rows, int cols) {
  row_max<<<rows / 8, 256>>>(x, y, rows, cols);  // expect: API006
}
#endif
