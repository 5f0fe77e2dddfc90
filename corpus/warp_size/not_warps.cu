// corpus: nvcc
// Every 32 here is something else: a tile edge, a bit count, a bitset word. All must stay silent.
#include <cstdint>

#define TILE 32
#define BITS_PER_WORD 32

__global__ void transpose(const float* in, float* out, int width, int height) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  if (x < width && y < height) tile[threadIdx.y][threadIdx.x] = in[y * width + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  if (x < height && y < width) out[y * height + x] = tile[threadIdx.x][threadIdx.y];
}

__device__ int popcount_bits(uint32_t word) {
  int count = 0;
  for (int b = 0; b < 32; ++b) count += (word >> b) & 1u;
  return count;
}

__global__ void mark(const int* keys, uint32_t* bitmap, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int key = keys[i];
  atomicOr(&bitmap[key >> 5], 1u << (key & 31));
}

__global__ void set_bits(uint32_t* bitmap, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicOr(&bitmap[i / 32], 1u << (i % 32));
}

__host__ int words_for(int bits) { return (bits + 31) / 32; }

__global__ void scale_rows(float* m, int cols, float s) {
  for (int c = threadIdx.x; c < cols; c += blockDim.x) m[blockIdx.x * cols + c] *= s;
  int chunk = cols / 32;
  (void)chunk;
}

// a lane id the kernel never reads (DeepSpeed's transform kernels keep one): dead on any wavefront
__global__ void copy_values(const float4* in, float4* out) {
  int d3 = threadIdx.x;
  int lane = d3 & 0x1f;
  out[blockIdx.x * blockDim.x + d3] = in[blockIdx.x * blockDim.x + d3];
}
