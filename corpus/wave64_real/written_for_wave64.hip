// HIP kernels written for 64-lane wavefronts on purpose, the shapes of AMD's own ROCm kernels
// (a serving library's bitonic top-k and its fused GEMV reduction, read in amd-aiter 0.1.7):
// a 32 there is bit 5 of a lane or half a wavefront, not a 32-lane warp, and a fix writing the
// warp width in would reorder the sort or mix the halves. Written for porter; the last kernel is
// the half-converted port that stays a finding.
#include <hip/hip_runtime.h>

// one compare-exchange stage per bit of the lane: `(lane / 32) & 1` is the stage of bit 5
__device__ float bitonic_stage(float v, int lane, int bit_mask, bool descending) {
  float other = __shfl_xor(v, bit_mask);
  bool keep_min = (((lane & bit_mask) == 0) != descending);
  return keep_min ? fminf(v, other) : fmaxf(v, other);
}

__device__ float bitonic_sort64(float v, int lane) {
  v = bitonic_stage(v, lane, 1, (lane / 2) & 1);
  v = bitonic_stage(v, lane, 2, (lane / 4) & 1);
  v = bitonic_stage(v, lane, 1, (lane / 4) & 1);
  v = bitonic_stage(v, lane, 4, (lane / 8) & 1);
  v = bitonic_stage(v, lane, 8, (lane / 16) & 1);
  v = bitonic_stage(v, lane, 16, (lane / 32) & 1);
  return v;
}

// two 16-lane sums per half-wavefront, paired, written out by lanes 0 and 32
__global__ void pair_halves(const float* in, float* out) {
  int lane = threadIdx.x % 64;
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int m = 8; m >= 1; m /= 2) v += __shfl_xor(v, m);
  float other = __shfl_xor(v, 16);
  if (lane == 0 || lane == 32) out[blockIdx.x * 2 + lane / 32] = v + other;
}

__global__ void sort_rows(float* rows) {
  int lane = threadIdx.x % 64;
  rows[blockIdx.x * 64 + lane] = bitonic_sort64(rows[blockIdx.x * 64 + lane], lane);
}

// a port that changed the lane to 64 and left the ladder at 16: half a wavefront summed
__global__ void half_converted(const float* in, float* out) {
  int lane = threadIdx.x % 64;
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int m = 16; m >= 1; m /= 2) v += __shfl_xor(v, m);  // expect: WRP002
  if (lane == 0) out[blockIdx.x] = v;
}
