// corpus: nvcc
// Tiles sized for NVIDIA's large shared memory: 33 KiB static plus 40 KiB dynamic fits an H100,
// not a 64 KiB LDS.
#include <cuda_runtime.h>  // expect: API005

#define TILE_M 64
#define TILE_K 32
#define STAGES 2

__global__ void staged_gemm(const float* a, float* c) {
  __shared__ float a_tiles[STAGES][TILE_M][TILE_K + 1];
  __shared__ float b_tiles[STAGES][TILE_K][TILE_M];
  extern __shared__ float epilogue[];
  int t = threadIdx.x;
  a_tiles[0][t % TILE_M][t % TILE_K] = a[t];
  b_tiles[1][t % TILE_K][t % TILE_M] = a[t + 1];
  __syncthreads();
  epilogue[t] = a_tiles[0][0][t % TILE_K] + b_tiles[1][0][t % TILE_M];
  c[t] = epilogue[t];
}

__global__ void fits(const float* a, float* c) {
  __shared__ float tile[64][65];
  tile[threadIdx.y][threadIdx.x] = a[threadIdx.x];
  __syncthreads();
  c[threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}

__global__ void dynamic_tiles(float* c) {
  extern __shared__ float smem[];
  smem[threadIdx.x] = 1.0f;
  __syncthreads();
  c[threadIdx.x] = smem[threadIdx.x];
}

void launch(const float* a, float* c) {
  constexpr size_t kSmem = 96 * 1024;
  cudaFuncSetAttribute(dynamic_tiles, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem);  // expect: API001 API004 LBD003 LDS002 API009
  dynamic_tiles<<<1, 256, kSmem>>>(c);  // expect: API006 LDS002
  dynamic_tiles<<<1, 256, 32 * 1024>>>(c);  // expect: API006
  cudaFuncSetAttribute(staged_gemm, cudaFuncAttributeMaxDynamicSharedMemorySize, 40 * 1024);  // expect: API001 API004 LBD003 LDS002 API009
  staged_gemm<<<1, 256, 40 * 1024>>>(a, c);  // expect: API006 LDS002
  fits<<<1, dim3(64, 16)>>>(a, c);  // expect: API006
}
