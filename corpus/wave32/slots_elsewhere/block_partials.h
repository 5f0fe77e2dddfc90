// A HIP port's block reductions kept in a header, as ports of extension libraries keep them, and
// launched by the file that includes it (launch.hip): one partial slot per 64-lane wavefront of the
// block that file launches. `wave_partial_rows` runs 512 threads, 8 wavefronts of 64 on CDNA, 16 of 32 on
// RDNA, whose wavefronts 8-15 write past its 8 slots; `wave_partial_cols` runs 256 threads, 4 slots for 8
// wavefronts of 32 on RDNA, so it overruns too; `wave_partial_tiles` sized for 1024 threads is launched with
// 256 (4 wavefronts of 64, 8 of 32: its 16 slots hold either), and `wave_partial_unused` is launched by no file.
// Written for porter.
#pragma once
#include <hip/hip_runtime.h>

__device__ inline float wave_sum(float v) {
  for (int offset = warpSize / 2; offset > 0; offset >>= 1) v += __shfl_down(v, offset);
  return v;
}

__global__ void wave_partial_rows(const float* x, float* y) {
  __shared__ float partial[8];  // expect[gfx1100]: WRP015
  const int lane = threadIdx.x % warpSize, wave = threadIdx.x / warpSize;
  const float v = wave_sum(x[blockIdx.x * blockDim.x + threadIdx.x]);
  if (lane == 0) partial[wave] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (int w = 0; w < 8; ++w) total += partial[w];
    y[blockIdx.x] = total;
  }
}

__global__ void wave_partial_cols(const float* x, float* y) {
  __shared__ float partial[4];  // expect[gfx1100]: WRP015
  const int lane = threadIdx.x % warpSize, wave = threadIdx.x / warpSize;
  const float v = wave_sum(x[blockIdx.x * blockDim.x + threadIdx.x]);
  if (lane == 0) partial[wave] = v;
  __syncthreads();
  if (threadIdx.x == 0) y[blockIdx.x] = partial[0] + partial[1] + partial[2] + partial[3];
}

__global__ void wave_partial_tiles(const float* x, float* y) {
  __shared__ float partial[16];
  const int lane = threadIdx.x % warpSize, wave = threadIdx.x / warpSize;
  const float v = wave_sum(x[blockIdx.x * blockDim.x + threadIdx.x]);
  if (lane == 0) partial[wave] = v;
  __syncthreads();
  if (threadIdx.x < blockDim.x / warpSize) atomicAdd(y + blockIdx.x, partial[threadIdx.x]);
}

__global__ void wave_partial_unused(const float* x, float* y) {
  __shared__ float partial[8];
  const int lane = threadIdx.x % warpSize, wave = threadIdx.x / warpSize;
  const float v = wave_sum(x[blockIdx.x * blockDim.x + threadIdx.x]);
  if (lane == 0) partial[wave] = v;
  __syncthreads();
  if (threadIdx.x == 0) y[blockIdx.x] = partial[0];
}
