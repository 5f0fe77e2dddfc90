// A planted port of ../warp_partials.cu as porter made it before it read CUB's logical warp: WRP001
// widened the lane and warp ids to the wavefront (PORTER_WARP_SIZE, here the CPU device's width) and
// left `cub::WarpReduce<float, 32>`. Right at 32 lanes; at 64 the reduction sums each half of the
// wavefront apart, and only lane 0's half reaches the block's sum.
#include <cub/cub.cuh>  // expect: LIB007
#if defined(PORTER_EMULATOR)
#define WARP_WIDTH PORTER_EMULATOR  // the width under test, as PORTER_WARP_SIZE gives it there
#else
#define WARP_WIDTH 64  // PORTER_WARP_SIZE on gfx90a and gfx942, for a compile outside the CPU device
#endif

__global__ void block_sums(const float* x, float* out, int n) {
  typedef cub::WarpReduce<float, 32> WarpReduce;  // expect: LIB007 WRP004
  __shared__ typename WarpReduce::TempStorage temp[8];
  __shared__ float partial[8];
  const int warp = threadIdx.x / WARP_WIDTH, lane = threadIdx.x % WARP_WIDTH;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  v = WarpReduce(temp[warp]).Sum(v);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int w = 0; w < blockDim.x / WARP_WIDTH; ++w) s += partial[w];
    out[blockIdx.x] = s;
  }
}
