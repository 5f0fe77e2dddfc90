// corpus: nvcc
// Group shuffles of half, bfloat16 and vector values: CUDA's take any trivially copyable type, HIP's
// only integers and floating-point values (a static_assert in its cooperative-groups header).
#include <cooperative_groups.h>  // expect: API005
#include <cuda_bf16.h>  // expect: API005
#include <cuda_fp16.h>  // expect: API005
namespace cg = cooperative_groups;

__device__ float float_sum(cg::thread_block_tile<16>& tile, float v) {
  for (int i = 1; i < 16; i *= 2) v += tile.shfl_xor(v, i);
  return v;
}

__device__ __half half_sum(const cg::thread_block_tile<16>& tile, __half v) {
  for (int i = 1; i < 16; i *= 2) v = __hadd(v, tile.shfl_xor(v, i));  // expect: CGR004
  return v;
}

// a template's value is not judged: this one is only ever a float here
template <typename T>
__device__ T first_of(cg::thread_block_tile<16>& tile, const T* values) {
  return tile.shfl(values[0], 0);
}

// classes of the project's own with shuffles of those names are no groups (ginkgo has a
// `group::thread_block_tile` of its own)
struct Lanes {
  __device__ __half shfl_xor(__half v, int) const { return v; }
};
namespace group {
template <int Size>
struct thread_block_tile {
  template <typename T>
  __device__ T shfl(T v, int) const { return v; }
};
}  // namespace group

__device__ __half own_tile(const group::thread_block_tile<16>& tile, __half v) { return tile.shfl(v, 0); }

__global__ void mixed(__half* halves, const __nv_bfloat16* __restrict__ raw, float2* vectors, float* sums) {  // expect: API003
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const __nv_bfloat16 value = raw[i];  // expect: API003
  __nv_bfloat16 next = tile.shfl_down(value, 1);  // expect: API003 CGR004
  float2 lead = tile.shfl(vectors[i], 0);  // expect: CGR004
  Lanes own;
  halves[i] = own.shfl_xor(halves[i], 1);
  halves[i] = half_sum(tile, halves[i]);
  sums[i] = float_sum(tile, lead.x + lead.y) + __bfloat162float(next) + first_of(tile, sums);
  cg::coalesced_group active = cg::coalesced_threads();
  __half h = halves[i];
  h = active.shfl(h, 0);  // expect: CGR004
  halves[i] = h;
}
