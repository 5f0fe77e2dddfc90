"""A hand port of ../embedded_row_sums.py, right at any warp width: the ladder starts at
warpSize / 2, and the shuffle takes the whole wavefront."""

import cupy

_ROW_SUMS = r"""
extern "C" __global__ void row_sums(const float* x, float* out, int n) {
  const float* row = x + blockIdx.x * n;
  float local = 0.f;
  for (int i = threadIdx.x; i < n; i += blockDim.x) local += row[i];
  for (int offset = warpSize / 2; offset > 0; offset >>= 1)
    local += __shfl_down(local, offset);
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
