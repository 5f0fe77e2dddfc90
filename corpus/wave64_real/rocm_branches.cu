// corpus: nvcc
// A file that supports ROCm in its own branches (issue 14 measured 13-30 % of findings of such
// projects on their ROCm side). The ROCm branches are HIP already and the NVIDIA-only branches
// are not porter's: neither side is reported as CUDA to port. Written for porter.
#if defined(USE_ROCM) || defined(__HIP_PLATFORM_AMD__)
#include <hip/hip_runtime.h>
#define SHFL_XOR(v, o) __shfl_xor(v, o)
#define HAS_PTX 0
#else
#include <cuda_runtime.h>
#define SHFL_XOR(v, o) __shfl_xor_sync(0xffffffffu, v, o)
#define HAS_PTX 1
#endif

__device__ inline unsigned lane_id() {
#if HAS_PTX
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
#else
  return __lane_id();
#endif
}

#if defined(__HIP_PLATFORM_AMD__)
__device__ inline void nap() { __asm volatile("s_sleep 1"); }
#else
__device__ inline void nap() { __nanosleep(100); }
#endif

__global__ void wave_sum(float* x) {
  float v = x[threadIdx.x];
#if defined(__gfx1100__) || defined(__gfx1101__)
  for (int off = 16; off > 0; off /= 2) v += SHFL_XOR(v, off);  // RDNA: wave32 by design
#elif defined(__HIP_DEVICE_COMPILE__)
  for (int off = 32; off > 0; off /= 2) v += SHFL_XOR(v, off);
#else
  for (int off = 16; off > 0; off /= 2) v += SHFL_XOR(v, off);
#endif
  nap();
  if (lane_id() == 0) x[blockIdx.x] = v;
}

#if defined(__HIP_PLATFORM_AMD__)
__global__ void rocm_only_count(const int* in, int* out) {
  unsigned votes = __ballot(in[threadIdx.x] > 0);  // expect: MSK002
  out[threadIdx.x] = __popc(votes);  // expect: MSK003
}
#endif
