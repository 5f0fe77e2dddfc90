// A planted port of ../any_block_sums.cu as porter made it before it kept the 32s of kernels whose
// warp operations stay within 32 lanes (porter at c8bbd64): warps counted by the wavefront. Right at
// 32 lanes and with 256-thread blocks; a 32-thread block on 64 lanes counts no warp and sums nothing.
__device__ float block_total(float part) {
  __shared__ float per_warp[32];
  for (int step = warpSize / 2; step >= 1; step >>= 1) part += __shfl_xor(part, step);
  const int warps = blockDim.x / warpSize;
  if (warps == 1) return part;
  const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  if (lane == 0) per_warp[warp] = part;
  __syncthreads();
  part = lane < warps ? per_warp[lane] : 0.0f;
  for (int step = warpSize / 2; step >= 1; step >>= 1) part += __shfl_xor(part, step);
  return part;
}

__global__ void scale_rows(const float* in, float* out, int width) {
  const float* row = in + blockIdx.x * width;
  float squares = 0.0f;
  for (int c = threadIdx.x; c < width; c += blockDim.x) squares += row[c] * row[c];
  const float scale = rsqrtf(block_total(squares) / width + 1e-6f);
  for (int c = threadIdx.x; c < width; c += blockDim.x) out[blockIdx.x * width + c] = row[c] * scale;
}
