// corpus: nvcc
// Unrolled butterflies whose widest step is 16: a partial one (16, 8, 1) whose lanes 0, 2, 4 and 6
// each hold a sum of eight lanes, in the shape of gptqmodel's AWQ gemv `warp_reduce`, and a full one
// (16 to 1) for a block's maximum. As written each half of a 64-lane wavefront runs them as one
// 32-lane warp. porter widens the warp (WARP_SIZE, and with it the warp index and the lanes that
// write), so the network must widen too: a step of 32 before the 16, not in its place. At 838a700 the
// fix replaced the 16 by half the wavefront: steps 32, 8, 4, 2, 1 never combine lanes that differ
// only in bit 4 (planted/unrolled_butterfly_replaced.cu). Written for porter.
#define WARP_SIZE 32  // expect: WRP006
#define BLOCK 128

template <int WarpSize>
__device__ __forceinline__ void warp_reduce(int v, int (*out_smem)[4]) {
  v += __shfl_xor_sync(~0, v, 16);  // expect: WRP002 MSK001 SYN001
  v += __shfl_xor_sync(~0, v, 8);  // expect: MSK001 SYN001
  v += __shfl_xor_sync(~0, v, 1);  // expect: MSK001 SYN001
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
  v = max(v, __shfl_xor_sync(0xffffffff, v, 16));  // expect: WRP002 MSK001 SYN001
  v = max(v, __shfl_xor_sync(0xffffffff, v, 8));  // expect: MSK001 SYN001
  v = max(v, __shfl_xor_sync(0xffffffff, v, 4));  // expect: MSK001 SYN001
  v = max(v, __shfl_xor_sync(0xffffffff, v, 2));  // expect: MSK001 SYN001
  v = max(v, __shfl_xor_sync(0xffffffff, v, 1));  // expect: MSK001 SYN001
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    int m = partial[0];
    for (int w = 1; w < BLOCK / WARP_SIZE; ++w) m = max(m, partial[w]);
    out[blockIdx.x] = m;
  }
}
