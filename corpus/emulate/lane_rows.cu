// corpus: nvcc
// Verify case for porter's CPU device: "one warp per row" kernels that read their lane from PTX's
// %laneid, through a header's helper (lane_id.cuh, as flashinfer's ConcatMLAKKernel calls
// get_lane_id()) or in the kernel itself. Four rows of 32 threads to a block of 128: on a 64-lane
// wavefront two rows share one, and the wavefront's lane (__lane_id(), what %laneid becomes) is
// 32-63 in the second. Ported as __lane_id() (as porter did before it knew the rows' lanes), the
// second row of each wavefront writes the next row's elements and leaves its own unwritten; the
// row's lane, `% 32`, is right at any width. Written for porter.
#include "lane_id.cuh"

__global__ void __launch_bounds__(128) scale_rows(const float* in, float* out, int rows) {
  const int row = blockIdx.x * 4 + threadIdx.x / 32;
  const int lane = get_lane_id();  // expect: WRP018
  if (row >= rows) return;
  out[row * 32 + lane] = in[row * 32 + lane] * (row + 1);
}

__global__ void __launch_bounds__(128) rotate_rows(const float* in, float* out, int rows) {
  const int row = blockIdx.x * 4 + threadIdx.x / 32;
  int lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));  // expect: ASM001
  if (row >= rows) return;
  out[row * 32 + (lane + 1) % 32] = in[row * 32 + lane];
}
