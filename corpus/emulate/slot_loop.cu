// corpus: nvcc
// A block sum whose first thread adds the per-warp partials in a loop counted by the block's
// number of 32-lane warps (8 for 256 threads), the shape of a cross-entropy kernel's HIP port in
// RWKV-Vibe/RWKV-LM-V7 pull request 20, where a review found the upper slots read unwritten at 64
// lanes. porter's automatic fixes make the warp id and the ladder follow the wavefront; the loop's
// 8 is WRP012's suggested fix. Written for porter.
__global__ void slot_loop(const float* in, float* out) {
  __shared__ float partial[8];
  const int lane = threadIdx.x & 31;  // expect: WRP001
  const int warp = threadIdx.x >> 5;  // expect: WRP001
  float v = in[blockIdx.x * 256 + threadIdx.x];
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffff, v, offset);  // expect: MSK001 SYN001 WRP002
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (int w = 0; w < 8; ++w) total += partial[w];  // expect: WRP012
    out[blockIdx.x] = total;
  }
}
