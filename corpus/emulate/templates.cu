// Verify case for porter's CPU device: warp reductions whose width is a template parameter, by
// default (`template <int width = 32>`) and given at the call (`group_max<32>(v)`). At 64 lanes the
// port's widths follow the wavefront; the block's sum and maximum do not depend on the width.
template <int width = 32>  // expect: WRP006
__device__ float warp_sum(float v) {
  for (int o = width / 2; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o, width);  // expect: SYN001 MSK001
  return v;
}

template <int group>
__device__ float group_max(float v) {
  for (int o = group / 2; o > 0; o /= 2) v = fmaxf(v, __shfl_down_sync(0xffffffffu, v, o));  // expect: SYN001 MSK001
  return v;
}

__global__ void warp_stats(const float* in, float* sums, int* maxes) {
  const float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  const float s = warp_sum(v);
  const float m = group_max<32>(v);  // expect: WRP002
  const int lane = threadIdx.x % 32;  // expect: WRP001
  if (lane == 0) {
    atomicAdd(&sums[blockIdx.x], s);
    atomicMax(&maxes[blockIdx.x], __float_as_int(m));  // positive floats order as their bits
  }
}
