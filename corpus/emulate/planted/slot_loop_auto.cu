// A planted port of ../slot_loop.cu: porter's automatic fixes alone (the warp id and the ladder
// follow the warp width), the loop still adding 8 slots. Right at 32 lanes; at 64 the block's 4
// wavefronts fill slots 0-3, and slots 4-7 are read unwritten.
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
    for (int w = 0; w < 8; ++w) total += partial[w];  // expect: WRP012
    out[blockIdx.x] = total;
  }
}
