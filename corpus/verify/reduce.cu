// corpus: nvcc
// Verify case: a warp-shuffle row sum written for 32-lane warps; porter's port must keep the sum whole
// on 64-lane wavefronts.

__global__ void row_sum(const float* in, float* out, int columns) {
  float value = 0.0f;
  for (int c = threadIdx.x; c < columns; c += blockDim.x) value += in[blockIdx.x * columns + c];
  for (int offset = 16; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffff, value, offset);  // expect: WRP002 SYN001 MSK001
  if ((threadIdx.x & 31) == 0) atomicAdd(&out[blockIdx.x], value);  // expect: WRP001
}
