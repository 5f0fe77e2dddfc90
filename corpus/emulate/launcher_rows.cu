// corpus: nvcc
// Verify case for porter's CPU device: a kernel whose block is 32 threads wide only through its
// launcher's template arguments. The kernel sums each row of a matrix with one 32-thread row of
// its block (BY rows to a block), and a helper hands the file's WARP_SIZE (32) to its shuffles as
// their width; the launcher builds the block from its own template parameters
// (`dim3 block(BX, BY)`) and the file instantiates it as `launch_rows<32, 4>`. On a 64-lane
// wavefront two rows share a wavefront and the helper, given a width of 32, still sums each alone:
// the 32 is right as written. Widened to the wavefront (planted/launcher_rows_widened.cu, the port
// porter made before it followed the launcher's arguments), it adds two rows together. Written for porter.
#define WARP_SIZE 32

__device__ float row_sum(float v) {
  for (int offset = WARP_SIZE / 2; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffff, v, offset, WARP_SIZE);  // expect: SYN001 MSK001
  return v;
}

template <int BX, int BY>
__global__ void rows_kernel(const float* x, float* y, int cols) {
  const int row = blockIdx.x * BY + threadIdx.y;
  float v = 0.0f;
  for (int c = threadIdx.x; c < cols; c += BX) v += x[row * cols + c];
  v = row_sum(v);
  if (threadIdx.x == 0) y[row] = v;
}

#if !defined(PORTER_EMULATOR)  // the host side, which porter's CPU device does not build
template <int BX, int BY>
void launch_rows(const float* x, float* y, int rows, int cols) {
  dim3 block(BX, BY);
  rows_kernel<BX, BY><<<rows / BY, block>>>(x, y, cols);  // expect: API006
}

void row_sums(const float* x, float* y, int rows, int cols) { launch_rows<32, 4>(x, y, rows, cols); }
#endif
