// A planted port of ../launcher_rows.cu as porter made it before it followed a launcher's template
// arguments to the block's width: WRP006 made `#define WARP_SIZE 32` the wavefront's width
// (PORTER_WARP_SIZE, here the CPU device's width) and MSK001 the mask all lanes. Right at 32 lanes;
// at 64 the helper sums each 32-thread row together with the next one.
#if defined(PORTER_EMULATOR)
#define WARP_SIZE PORTER_EMULATOR  // the width under test, as PORTER_WARP_SIZE gives it there
#else
#define WARP_SIZE 64  // PORTER_WARP_SIZE on gfx90a and gfx942, for a compile outside the CPU device
#endif

__device__ float row_sum(float v) {
  for (int offset = WARP_SIZE / 2; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffffffffffffull, v, offset, WARP_SIZE);  // expect: SYN001
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
