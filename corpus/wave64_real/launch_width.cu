// corpus: nvcc
// Rows per block planned on the host from a block width that only the launch says is a thread
// count: `width / 32` is a count of 32-lane warps, whatever `width` is called.
__global__ void row_max(const float* in, float* out, int rows, int cols) {
  int lane = threadIdx.x % 32;  // expect: WRP001
  int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;  // expect: WRP001 WRP001
  if (row >= rows) return;
  float m = -1e30f;
  for (int c = lane; c < cols; c += 32) m = fmaxf(m, in[row * cols + c]);  // expect: WRP005
  for (int o = 16; o > 0; o /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));  // expect: WRP002 SYN001 MSK001
  if (lane == 0) out[row] = m;
}

void launch_row_max(const float* in, float* out, int rows, int cols) {
  const int width = 128;
  const int per_block = width / 32;  // expect: WRP008
  row_max<<<(rows + per_block - 1) / per_block, width>>>(in, out, rows, cols);  // expect: API006
}
