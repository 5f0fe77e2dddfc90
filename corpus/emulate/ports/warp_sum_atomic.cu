// A hand port of ../reductions.cu's warp_sum_atomic, right at any warp width: the butterfly starts
// at half the warp and the lane test follows warpSize.
__global__ void warp_sum_atomic(const float* in, float* out, int columns) {
  float v = 0.0f;
  for (int c = threadIdx.x; c < columns; c += blockDim.x) v += in[blockIdx.x * columns + c];
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_xor(v, offset);
  if (threadIdx.x % warpSize == 0) atomicAdd(&out[blockIdx.x], v);
}
