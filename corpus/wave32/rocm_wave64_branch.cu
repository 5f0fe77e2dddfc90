// corpus: nvcc
// A project's ROCm branch written on CDNA: its width is 64 for every AMD target, and its
// HIP-only butterfly starts at a step of 32. On RDNA (wave32) each is wrong: the classes of
// ROCm/hipCollections#4 (wavefront size hard-coded to 64) and of a Q4 GEMV that used
// `__shfl_xor(s, 32)` on a 32-lane device (1bit-MONSTER#746). Written for porter.
#include <cstdint>
#if defined(__HIP_PLATFORM_AMD__)
#include <hip/hip_runtime.h>
#define GROUP_LANES 64
#else
#include <cuda_runtime.h>
#define GROUP_LANES 32
#endif

#if defined(__HIP_PLATFORM_AMD__)
__device__ inline float group_sum(float s) {
  s += __shfl_xor(s, 32);  // expect[gfx1100]: WRP015
  s += __shfl_xor(s, 16);
  s += __shfl_xor(s, 8);
  s += __shfl_xor(s, 4);
  s += __shfl_xor(s, 2);
  s += __shfl_xor(s, 1);
  return s;
}
#else
__device__ inline float group_sum(float s) {
  for (int offset = 16; offset > 0; offset >>= 1) s += __shfl_xor_sync(0xffffffffu, s, offset);
  return s;
}
#endif

__global__ void gemv_rows(const float* w, const float* x, float* y, int rows, int cols) {
  int lane = threadIdx.x % GROUP_LANES;  // expect[gfx1100]: WRP015
  int row = blockIdx.x * (blockDim.x / GROUP_LANES) + threadIdx.x / GROUP_LANES;  // expect[gfx1100]: WRP015 WRP015
  if (row >= rows) return;
  float s = 0.f;
  for (int c = lane; c < cols; c += GROUP_LANES) s += w[row * cols + c] * x[c];  // expect[gfx1100]: WRP015
  s = group_sum(s);
  if (lane == 0) y[row] = s;
}

// a 64-bit bitset indexed by a global id: 64 bits per word, not 64 lanes
__global__ void mark(uint64_t* words, const int* hits, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && hits[i]) atomicOr(reinterpret_cast<unsigned long long*>(&words[i >> 6]), 1ull << (i & 63));
}

#if defined(__HIP_PLATFORM_AMD__)
// CDNA-only code: RDNA never compiles it
#if defined(__GFX9__)
__device__ inline float upper_half(float v) { return __shfl(v, (threadIdx.x & 63) ^ 32); }
#endif
// per wavefront width: the wave64 arm is right on CDNA, the other on RDNA
#if __AMDGCN_WAVEFRONT_SIZE == 64
__device__ inline float last_lane(float v) { return __shfl(v, 63); }
#else
__device__ inline float last_lane(float v) { return __shfl(v, 31); }
#endif
__global__ void broadcast_last(float* v) {
  int lane = threadIdx.x & 63;  // expect[gfx1100]: WRP015
  float last = last_lane(v[threadIdx.x]);
  if (lane == 63) v[threadIdx.x] = last;  // expect[gfx1100]: WRP015
}
#endif
