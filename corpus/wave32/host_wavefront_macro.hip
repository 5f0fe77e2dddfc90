// A HIP port whose warp width comes from the wavefront macro, with the launch's shared memory
// sized on the host by the warps it counts with it: the shape of Lucebox's RMSNorm launcher
// (Luce-Org/lucebox#500). hip-clang's host pass defines the macro too, as 64 for every target. On
// CDNA both passes read 64; on RDNA (gfx1100) the device pass reads 32 and writes one partial sum per
// 32 lanes, eight for 256 threads, while the host sized the array for four. Written for porter.
#include <hip/hip_runtime.h>

#if defined(__AMDGCN_WAVEFRONT_SIZE) && __AMDGCN_WAVEFRONT_SIZE == 64
#define PART_WARP 64
#else
#define PART_WARP 32
#endif

__global__ void partial_sums(const float* x, float* partials) {
  extern __shared__ float part[];
  float v = x[blockIdx.x * blockDim.x + threadIdx.x];
  for (int o = PART_WARP / 2; o > 0; o /= 2) v += __shfl_xor(v, o);
  if (threadIdx.x % PART_WARP == 0) part[threadIdx.x / PART_WARP] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.f;
    for (int w = 0; w < blockDim.x / PART_WARP; ++w) total += part[w];
    partials[blockIdx.x] = total;
  }
}

void launch_partial_sums(const float* x, float* partials, int n, hipStream_t stream) {
  const int threads = 256;
  const int warps = threads / PART_WARP;  // expect[gfx1100]: WRP013
  partial_sums<<<n / threads, threads, warps * sizeof(float), stream>>>(x, partials);
}
