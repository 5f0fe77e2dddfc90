// corpus: nvcc
// A kernel with no warp operation that still counts its threads in 32s: a slot for each 32-thread
// group's first value, and each lane's quad within its group. The shape of marlin's weight repack
// (gptqmodel's marlin/gptq_marlin_repack.cu: `warp_id = threadIdx.x / 32`, `th_id = threadIdx.x % 32`,
// each thread placing values by its group's layout) and of flashinfer's bit unpacking. Nothing reads
// the lanes of a warp: each 32-thread group does on a 64-lane wavefront what it does on NVIDIA, so the
// 32s are right as written and porter leaves them. porter at 62abe92 widened the lane's `% 32`
// automatically (and said slots 4-7 are never written, WRP012): at 64 lanes a block of 256 threads
// then fills only the slots of groups 0, 2, 4 and 6 (planted/group_slots_widened.cu). Written for porter.
__global__ void group_slots(const float* x, float* firsts, int* quads) {
  __shared__ float slot[8];
  const int lane = threadIdx.x % 32, group = threadIdx.x / 32;
  if (lane == 0) slot[group] = x[blockIdx.x * blockDim.x + threadIdx.x];
  __syncthreads();
  if (threadIdx.x < 8) firsts[blockIdx.x * 8 + threadIdx.x] = slot[threadIdx.x];
  quads[blockIdx.x * blockDim.x + threadIdx.x] = (threadIdx.x & 31) >> 2;
}
