// A planted port of ../unrolled_butterfly.cu as porter made it at 838a700: the warp widened to the
// wavefront and each butterfly's 16 replaced by half of it. Right at 32 lanes; at 64 the steps are
// 32, 8, (4, 2,) 1, so no lane's sum or maximum takes the lanes that differ from it only in bit 4.
#define WARP_SIZE warpSize  // expect: WRP009
#define BLOCK 128

template <int WarpSize>
__device__ __forceinline__ void warp_reduce(int v, int (*out_smem)[4]) {
  v += __shfl_xor(v, warpSize / 2);
  v += __shfl_xor(v, 8);
  v += __shfl_xor(v, 1);
  int warp = threadIdx.x / WarpSize, lane = threadIdx.x % WarpSize;
  if (lane == 0 || lane == 2 || lane == 4 || lane == 6) out_smem[warp][lane / 2] = v;
  __syncthreads();
}

__global__ void interleaved_sums(const int* in, int* out) {
  __shared__ int out_smem[BLOCK / WARP_SIZE][4];
  warp_reduce<WARP_SIZE>(in[blockIdx.x * BLOCK + threadIdx.x], out_smem);
  if (threadIdx.x < 4) {
    int acc = 0;
    for (int j = 0; j < BLOCK / WARP_SIZE; ++j) acc += out_smem[j][threadIdx.x];
    out[blockIdx.x * 4 + threadIdx.x] = acc;
  }
}

__global__ void block_max(const int* in, int* out) {
  __shared__ int partial[BLOCK / WARP_SIZE];
  const int lane = threadIdx.x % WARP_SIZE, warp = threadIdx.x / WARP_SIZE;
  int v = in[blockIdx.x * BLOCK + threadIdx.x];
  v = max(v, __shfl_xor(v, warpSize / 2));
  v = max(v, __shfl_xor(v, 8));
  v = max(v, __shfl_xor(v, 4));
  v = max(v, __shfl_xor(v, 2));
  v = max(v, __shfl_xor(v, 1));
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    int m = partial[0];
    for (int w = 1; w < BLOCK / WARP_SIZE; ++w) m = max(m, partial[w]);
    out[blockIdx.x] = m;
  }
}
