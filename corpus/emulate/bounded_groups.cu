// corpus: nvcc
// A tile of `rows` rows of 32 columns zeroed by a block-stride loop over its elements before the
// block's warps add into it, in the shape of gptqmodel's swordfish decode epilogue
// (swordfish_decode.cuh): the element `i` is split into its row `i >> 5` and column `i & 31`, and
// bounded by `rows * 32`. The split does not depend on the warp: the 32 is the tile's width, right as
// written on any wavefront. Widening it alone (`i % 64`, `i / 64`) leaves the bound at 32: on wave64
// half the rows are zeroed 64 wide, into the next tile's columns, and the other half keep their
// values (planted/bounded_groups_widened.cu). porter at 5e9d9c4 widened it automatically.
// Written for porter.
__global__ void zero_then_add(float* c, const float* x, int rows, int ld) {
  float* tile = c + blockIdx.x * 32;
  for (int i = threadIdx.x; i < rows * 32; i += blockDim.x) {
    tile[(i >> 5) * ld + (i & 31)] = 0.0f;  // expect: WRP001 WRP001
  }
  __syncthreads();
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffff, v, offset);  // expect: MSK001 SYN001
  if (threadIdx.x % warpSize == 0) atomicAdd(&tile[0], v);  // the block's sum, whatever the width
}
