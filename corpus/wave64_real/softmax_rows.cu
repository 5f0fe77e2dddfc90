// corpus: nvcc
// A newcomer's row softmax (issue 14/18): the lane id became `% warpSize`, the stride and the
// host's warp count stayed 32. Both are errors with automatic fixes that agree with each other.
__global__ void softmax_rows(const float* x, float* y, int cols) {
  int lane = threadIdx.x % warpSize;
  int row = blockIdx.x * (blockDim.x / warpSize) + threadIdx.x / warpSize;
  float m = -1e30f;
  for (int c = lane; c < cols; c += 32) m = fmaxf(m, x[row * cols + c]);  // expect: WRP005
  y[row] = m;
}
void launch(const float* x, float* y, int rows, int cols) {
  int threads = 256;
  int warps_per_block = threads / 32;  // expect: WRP008
  softmax_rows<<<(rows + warps_per_block - 1) / warps_per_block, threads>>>(x, y, cols);  // expect: API006
}
