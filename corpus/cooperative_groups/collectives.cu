// corpus: nvcc
// Cooperative-groups collectives and a persistent kernel with a grid barrier.
#include <cooperative_groups.h>  // expect: API005
#include <cooperative_groups/reduce.h>  // expect: CGR001
#include <cuda_runtime.h>  // expect: API005
namespace cg = cooperative_groups;

__global__ void tile_sum(const float* in, float* out) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  float total = cg::reduce(tile, v, cg::plus<float>());  // expect: CGR001
  if (tile.thread_rank() == 0) out[blockIdx.x * (blockDim.x / 16) + tile.meta_group_rank()] = total;
}

__global__ void bucketed(const int* keys, int* counts) {
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
  int key = keys[blockIdx.x * blockDim.x + threadIdx.x];
  auto same = cg::labeled_partition(tile, key);  // expect: CGR001
  if (same.thread_rank() == 0) atomicAdd(&counts[key], static_cast<int>(same.num_threads()));  // expect: CGR001
}

__global__ void persistent(float* data, int n, int iterations) {
  cg::grid_group grid = cg::this_grid();
  for (int it = 0; it < iterations; ++it) {
    for (int i = grid.thread_rank(); i < n; i += grid.size()) data[i] *= 0.5f;
    grid.sync();  // expect: CGR002
  }
}

void run_persistent(float* data, int n) {
  persistent<<<80, 256>>>(data, n, 10);  // expect: API006
}
