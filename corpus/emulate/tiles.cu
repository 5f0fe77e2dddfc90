// Verify case for porter's CPU device: cooperative groups' tiles of 16 threads, reduced and summed.
#include <cooperative_groups.h>  // expect: API005
namespace cg = cooperative_groups;

__global__ void tile_sum(const float* in, float* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  v = cg::reduce(tile, v, cg::plus<float>());  // expect: CGR001
  if (tile.thread_rank() == 0) atomicAdd(&out[blockIdx.x], v);
  block.sync();
}
