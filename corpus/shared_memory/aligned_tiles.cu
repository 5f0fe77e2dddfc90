// Shared memory declared with CUDA's `__align__(n)`, as vectorised kernels do. The grammar does
// not know the macro: read as written, `__shared__ __align__(16) float tile[…]` is a call
// followed by a parenthesised declarator, and the 80 KiB below were never counted. Beyond
// NVIDIA's 48 KiB static cap too, so no nvcc build: porter reports it per AMD target.
#include <cuda_runtime.h>  // expect: API005

#define ROWS 128
#define COLS 160

struct __align__(16) Quad {
  float x, y, z, w;
};

__global__ void aligned_tile(float* out) {
  __shared__ __align__(16) float tile[ROWS][COLS];  // expect: LDS001
  tile[threadIdx.y][threadIdx.x] = 1.0f;
  __syncthreads();
  out[threadIdx.x] = tile[threadIdx.x % ROWS][threadIdx.y];
}

__global__ void dynamic_quads(Quad* out) {
  extern __shared__ __align__(16) char raw[];  // sized at launch: no static count
  Quad* quads = reinterpret_cast<Quad*>(raw);
  quads[threadIdx.x] = out[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = quads[blockDim.x - 1 - threadIdx.x];
}
