// A planted port of ../row_blocks.cu's rms_rows: its row width widened to the warp width as if a
// row were a warp, the launch left at `dim3(32, 4)`. Right at 32 lanes; at 64 the thread index
// skips half the row's elements and the ladder adds the next row's sums.
__global__ void rms_rows(const float* in, float* out, int d) {
  const unsigned tx = threadIdx.x, ty = threadIdx.y;
  const unsigned row = warpSize;  // expect: WRP021
  const unsigned thread_id = tx + ty * row;
  const unsigned threads = blockDim.y * row;
  __shared__ float partial[64];
  float sum = 0.f;
  for (unsigned i = thread_id; i < d; i += threads) sum += in[blockIdx.x * d + i] * in[blockIdx.x * d + i];
  for (unsigned offset = row / 2; offset > 0; offset /= 2) sum += __shfl_xor(sum, offset);
  if (tx == 0) partial[ty] = sum;
  __syncthreads();
  if (ty == 0) {
    sum = tx < blockDim.y ? partial[tx] : 0.f;
    for (unsigned offset = row / 2; offset > 0; offset /= 2) sum += __shfl_xor(sum, offset);
    if (tx == 0) partial[0] = sum;
  }
  __syncthreads();
  float scale = rsqrtf(partial[0] / d + 1e-6f);
  for (unsigned i = thread_id; i < d; i += threads) out[blockIdx.x * d + i] = in[blockIdx.x * d + i] * scale;
}
