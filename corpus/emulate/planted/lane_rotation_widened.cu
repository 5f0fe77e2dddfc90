// A planted port of ../lane_rotation.cu as porter made it before a shuffle's source taken modulo
// 32 was read as a permutation of 32 lanes: the lane and the modulus widened to the wavefront.
// Right at 32 lanes; at 64, lane 31 of each wavefront takes lane 32's value and lane 63 lane 0's.
__global__ void lane_rotation(const float* in, float* out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int lane = threadIdx.x % warpSize;
  out[i] = __shfl(in[i], (lane + 1) % warpSize);
}
