"""Row sums compiled at run time through cupy: a kernel held in a Python string, written for
32-lane warps. Its ladder starts at 16 while its lane and warp ids follow `warpSize`: on a 64-lane
wavefront lane 0 holds the sum of lanes 0-31 alone, and each row's sum loses half its values
(the first bug of cupy/cupy#9977, written anew). `porter verify` runs the string's kernel as the
file holds it."""

import cupy

_ROW_SUMS = r"""
extern "C" __global__ void row_sums(const float* x, float* out, int n) {  // expect: EMB001
  const float* row = x + blockIdx.x * n;
  float local = 0.f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) local += row[i];
  for (int offset = 16; offset > 0; offset >>= 1)  // expect: WRP002
    local += __shfl_down_sync(0xffffffff, local, offset);  // expect: SYN001 MSK001
  __shared__ float partial[32];
  if (threadIdx.x % warpSize == 0) partial[threadIdx.x / warpSize] = local;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.f;
    for (int w = 0; w < blockDim.x / warpSize; ++w) total += partial[w];
    out[blockIdx.x] = total;
  }
}
"""

row_sums = cupy.RawKernel(_ROW_SUMS, "row_sums")
