// corpus: nvcc
// A planted wrong port of ../reduce.cu, kept to prove that verify fails a wrong port: the shuffle
// ladder stops at offset 8, so every 32-lane group adds only half its lanes.

__global__ void row_sum(const float* in, float* out, int columns) {
  float value = 0.0f;
  for (int c = threadIdx.x; c < columns; c += blockDim.x) value += in[blockIdx.x * columns + c];
  for (int offset = 8; offset > 0; offset /= 2) value += __shfl_down_sync(0xffffffff, value, offset);  // expect: SYN001 MSK001
  if ((threadIdx.x & 31) == 0) atomicAdd(&out[blockIdx.x], value);  // expect: WRP001
}
