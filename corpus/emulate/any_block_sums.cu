// corpus: nvcc
// A block reduction that takes any multiple of 32 threads and skips the shared-memory pass when the
// block is one warp, in the shape of exllamav3 1.6.5's norm kernels (norm.cu's `reduce_dyn`): the
// warps count `blockDim.x / 32` and the butterflies start at 16. Every warp operation stays within 32
// lanes, so on wave64 each half of a wavefront is a warp and the 32s stay (porter.rules.within_rows).
// Widened, a 32-thread block counts `32 / 64 = 0` warps, skips neither pass, and sums nothing
// (planted/any_block_sums_widened.cu). Written for porter.
__device__ float block_total(float part) {
  __shared__ float per_warp[32];
  for (int step = 16; step >= 1; step >>= 1) part += __shfl_xor_sync(0xffffffff, part, step);  // expect: MSK001 SYN001
  const int warps = blockDim.x / 32;
  if (warps == 1) return part;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) per_warp[warp] = part;
  __syncthreads();
  part = lane < warps ? per_warp[lane] : 0.0f;
  for (int step = 16; step >= 1; step >>= 1) part += __shfl_xor_sync(0xffffffff, part, step);  // expect: MSK001 SYN001
  return part;
}

__global__ void scale_rows(const float* in, float* out, int width) {
  const float* row = in + blockIdx.x * width;
  float squares = 0.0f;
  for (int c = threadIdx.x; c < width; c += blockDim.x) squares += row[c] * row[c];
  const float scale = rsqrtf(block_total(squares) / width + 1e-6f);
  for (int c = threadIdx.x; c < width; c += blockDim.x) out[blockIdx.x * width + c] = row[c] * scale;
}
