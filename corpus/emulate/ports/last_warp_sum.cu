// A hand port of ../reductions.cu's last_warp_sum, right at any warp width: the last stage is the
// first wavefront, whatever its width (WRP014's suggested fix).
__global__ void last_warp_sum(const float* in, float* out) {
  __shared__ float partial[32];
  const int warp = threadIdx.x / warpSize, lane = threadIdx.x % warpSize;
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down(v, offset);
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (threadIdx.x < warpSize) {
    v = threadIdx.x < blockDim.x / warpSize ? partial[threadIdx.x] : 0.0f;
    for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down(v, offset);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
  }
}
