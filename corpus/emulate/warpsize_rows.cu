// corpus: nvcc
// Verify case for porter's CPU device: a row per block of 32 threads whose author wrote `warpSize`
// for the row (`threadIdx.x % warpSize`, a stride of warpSize, a ladder from warpSize / 2), launched
// `<<<rows, 32>>>`. On a 64-lane wavefront warpSize is 64 and the row is still 32 threads: the stride
// skips half the row and the ladder's first shuffle, past the row, adds each lane's own value. The
// port writes the row's 32 for warpSize (WRP021) and gives the shuffle its width; porter's port
// before it did the first only (planted/warpsize_rows_wavefront.cu). Written for porter.
__global__ void block_row_sums(const float* x, float* out, int cols) {
  const int lane = threadIdx.x % warpSize;  // expect: WRP021
  float s = 0.0f;
  for (int i = lane; i < cols; i += warpSize) s += x[blockIdx.x * cols + i];  // expect: WRP021
  for (int o = warpSize / 2; o > 0; o /= 2) s += __shfl_down_sync(0xffffffff, s, o);  // expect: WRP021 WRP016 SYN001 MSK001
  if (lane == 0) out[blockIdx.x] = s;
}

#if !defined(PORTER_EMULATOR)  // the host side, which porter's CPU device does not build
void launch_row_sums(const float* x, float* out, int rows, int cols) {
  block_row_sums<<<rows, 32>>>(x, out, cols);  // expect: API006
}
#endif
