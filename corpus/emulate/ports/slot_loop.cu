// A hand port of ../slot_loop.cu, right at any warp width: the warp id and the ladder follow
// warpSize, and the loop counts the slots the block's warps fill (WRP012's suggested fix).
__global__ void slot_loop(const float* in, float* out) {
  __shared__ float partial[8];
  const int lane = threadIdx.x % warpSize;
  const int warp = threadIdx.x / warpSize;
  float v = in[blockIdx.x * 256 + threadIdx.x];
  for (int offset = warpSize / 2; offset > 0; offset >>= 1) v += __shfl_down(v, offset);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (int w = 0; w < (8 * 32 / warpSize); ++w) total += partial[w];
    out[blockIdx.x] = total;
  }
}
