// corpus: nvcc
// Host code that plans a launch with a warp width only ROCm's device pass sets to the wavefront
// (host_pass_width.h): the kernels run 64-lane wavefronts, the host sizes for 32. The class of
// bitsandbytes-foundation/bitsandbytes#2059 and ROCm/bitsandbytes#93 (half the output rows
// skipped on MI300X). Written anew.
#include "host_pass_width.h"

template <int LANES>
__global__ void scale_rows(const float* in, float* out, int rows, int cols) {
  int row = blockIdx.x * (blockDim.x / HPW_WARP) + threadIdx.x / HPW_WARP;
  int lane = threadIdx.x % HPW_WARP;
  if (row < rows && lane < cols) out[row * cols + lane] = in[row * cols + lane] * LANES;
}

__host__ __device__ inline int lanes_of(int threads) { return threads / HPW_WARP; }

void launch_scale_rows(const float* in, float* out, int rows, int cols) {
  const int threads = 128;
  const int rows_per_block = threads / HPW_WARP;  // expect: WRP013
  int blocks = (rows + rows_per_block - 1) / rows_per_block;
  scale_rows<1><<<blocks, threads>>>(in, out, rows, cols);  // expect: API006
}

void launch_small(const float* in, float* out, int n, int blocksize) {
  if (blocksize == HPW_WARP) {  // expect: WRP013
    scale_rows<2><<<n, HPW_LANES_BOTH_PASSES>>>(in, out, n, 1);  // expect: API006
  }
  // the host launches scale_rows<32>, which gfx942's code object lacks: its device pass made <64>
  scale_rows<HPW_WARP><<<n, 64>>>(in, out, n, 1);  // expect: WRP013 API006
}

// a constant derived from the width at namespace scope splits with it
constexpr int HPW_ROWS_PER_BLOCK = 128 / HPW_WARP;

void launch_rows(const float* in, float* out, int rows) {
  scale_rows<3><<<(rows + HPW_ROWS_PER_BLOCK - 1) / HPW_ROWS_PER_BLOCK, 128>>>(in, out, rows, 1);  // expect: WRP013 WRP013 API006
}
