// corpus: nvcc
// The last warp of a block reduction, behind `tid < 32`: threads 0-31 are the first warp on
// NVIDIA and half of the first wavefront on CDNA. A ladder from 16 stays among them (right on
// both, and left alone); a ladder from `warpSize / 2` reads lanes 32-63, which the test keeps
// idle. The count of per-warp slots is a local constant worked out for 32 lanes. Written for porter
// from the shape of public block reductions.
template <int BLOCK>
__global__ void block_sum(const float* x, float* out, int n) {
  constexpr int NUM_WARPS = BLOCK / 32;  // expect: WRP003
  __shared__ float partial[NUM_WARPS];
  int tid = threadIdx.x;
  int lane = tid % warpSize;
  int warp = tid / warpSize;
  float v = blockIdx.x * BLOCK + tid < n ? x[blockIdx.x * BLOCK + tid] : 0.f;
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);  // expect: SYN001 MSK001
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (tid < 32) {  // expect: WRP014
    v = tid < NUM_WARPS ? partial[tid] : 0.f;
    for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down_sync(0xffffffff, v, o);  // expect: SYN001 MSK001
    if (tid == 0) atomicAdd(out, v);
  }
}
template __global__ void block_sum<256>(const float*, float*, int);

// threads 0-31 fold 64 values and finish among themselves: right on wave64 as written
__global__ void fold_64(const float* x, float* out) {
  __shared__ float s[64];
  s[threadIdx.x] = x[blockIdx.x * 64 + threadIdx.x];
  __syncthreads();
  if (threadIdx.x < 32) {
    float v = s[threadIdx.x] + s[threadIdx.x + 32];
    for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffff, v, o);  // expect: SYN001 MSK001
    if (threadIdx.x == 0) out[blockIdx.x] = v;
  }
}
