// A planted port of ../reductions.cu's last_warp_sum: what porter's automatic fixes make of it (the
// masks in 64 bits, lanes 0-31 under `< 32`), WRP014's suggested fix left out. Right at 32 lanes; at
// 64 the last stage's ladder starts by reading lanes 32-63, which `threadIdx.x < 32` keeps idle.
__global__ void last_warp_sum(const float* in, float* out) {
  __shared__ float partial[32];
  const int warp = threadIdx.x / warpSize, lane = threadIdx.x % warpSize;
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down(v, offset);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (threadIdx.x < 32) {  // expect: WRP014
    v = threadIdx.x < blockDim.x / warpSize ? partial[threadIdx.x] : 0.0f;
    for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffull, v, offset);  // expect: SYN001
    if (threadIdx.x == 0) out[blockIdx.x] = v;
  }
}
