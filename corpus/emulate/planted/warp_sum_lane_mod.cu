// A planted half-port of ../reductions.cu's warp_sum_atomic: the lane test follows warpSize, the
// butterfly still starts at 16. Right at 32 lanes; at 64 each half-wavefront is summed apart and
// only lane 0 adds its half, so half of every row is lost.
__global__ void warp_sum_atomic(const float* in, float* out, int columns) {
  float v = 0.0f;
  for (int c = threadIdx.x; c < columns; c += blockDim.x) v += in[blockIdx.x * columns + c];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor(v, offset);  // expect: WRP002
  if (threadIdx.x % warpSize == 0) atomicAdd(&out[blockIdx.x], v);
}
