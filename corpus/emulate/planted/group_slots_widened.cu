// A planted port of ../group_slots.cu as porter made it at 62abe92: the lane's `% 32` widened to the
// wavefront, the group left at 32. Right at 32 lanes; at 64, only the threads at multiples of 64 are
// a lane 0, so a block fills the slots of groups 0, 2, 4 and 6 and reads the other four unwritten.
__global__ void group_slots(const float* x, float* firsts, int* quads) {
  __shared__ float slot[8];
  const int lane = threadIdx.x % warpSize, group = threadIdx.x / 32;
  if (lane == 0) slot[group] = x[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  if (threadIdx.x < 8) firsts[blockIdx.x * 8 + threadIdx.x] = slot[threadIdx.x];  // expect: WRP012
  quads[blockIdx.x * blockDim.x + threadIdx.x] = (threadIdx.x & 31) >> 2;
}
