// A planted port of ../warp_gemv.cu as porter made it before it read `(THREADS / 32) * blockIdx.x`
// as the block's warps: WRP001 and WRP003 widened the kernel's 32s to the wavefront
// (PORTER_WARP_SIZE, here the CPU device's width), while the lane loop still steps by 32 values
// and the host still launches (rows + 3) / 4 blocks of 128. Right at 32 lanes; at 64 each block
// takes rows 0-1 of its 4, and lanes 32-63 start on elements lanes 0-31 reach a step later.
#include <cub/cub.cuh>  // expect: LIB007
#if defined(PORTER_EMULATOR)
#define WARP_WIDTH PORTER_EMULATOR  // the width under test, as PORTER_WARP_SIZE gives it there
#else
#define WARP_WIDTH 64  // PORTER_WARP_SIZE on gfx90a and gfx942, for a compile outside the CPU device
#endif

#define VALUES_PER_LANE 4

template <int THREADS>
__global__ void warp_gemv(const float* __restrict__ matrix, const float* __restrict__ vector, float* out, int rows, int cols) {
  typedef cub::WarpReduce<float> WarpReduce;  // expect: LIB007
  __shared__ typename WarpReduce::TempStorage temp_storage[THREADS / WARP_WIDTH];
  const int warp = threadIdx.x / WARP_WIDTH;
  const int lane = threadIdx.x % WARP_WIDTH;
  const int row = (THREADS / WARP_WIDTH) * blockIdx.x + warp;
  float sum = 0.0f;
  for (int k = lane * VALUES_PER_LANE; k < cols; k += 32 * VALUES_PER_LANE) {  // expect: WRP005
    for (int v = 0; v < VALUES_PER_LANE; ++v) {
      if (row < rows && k + v < cols) sum += matrix[row * cols + k + v] * vector[k + v];
    }
  }
  sum = WarpReduce(temp_storage[warp]).Sum(sum);
  if (row < rows && lane == 0) out[row] = sum;
}
