// corpus: nvcc
// Verify case for porter's CPU device: a block sum whose warps reduce with CUB given a logical warp
// of 32 (`cub::WarpReduce<float, 32>`), lane 0 of each warp writing its partial. Ported to 64 lanes
// with the lane and warp ids widened, a 32-lane WarpReduce sums each half of the wavefront apart and
// lane 32's half is never written: the width follows the wavefront (WRP004). The port porter made
// before it read CUB's width, planted/warp_partials_half.cu, loses half of every block. Written for porter.
#include <cub/cub.cuh>  // expect: LIB007

__global__ void block_sums(const float* x, float* out, int n) {
  typedef cub::WarpReduce<float, 32> WarpReduce;  // expect: LIB007 WRP004
  __shared__ typename WarpReduce::TempStorage temp[8];
  __shared__ float partial[8];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;  // expect: WRP001 WRP001
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  v = WarpReduce(temp[warp]).Sum(v);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.0f;
    for (int w = 0; w < blockDim.x / 32; ++w) s += partial[w];  // expect: WRP001
    out[blockIdx.x] = s;
  }
}
