// corpus: nvcc
// Block reductions that size and read back their per-warp slots by the block's count of 32-lane
// warps, written as a number (8 warps of a 256-thread block), as hand-written arg-max and norm
// kernels do. On wave64 the block has 4 wavefronts: slots 4-7 are read but never written.
#include <cuda_runtime.h>  // expect: API005
#include <math.h>

constexpr int kWarps = 8;  // 256 threads

__global__ void block_argmax(const float* x, int* out, int n) {
  __shared__ float best_val[8];
  __shared__ int best_idx[8];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;  // expect: WRP001 WRP001
  float best = -INFINITY;
  int index = 0;
  for (int i = threadIdx.x; i < n; i += 256) {
    if (x[i] > best) { best = x[i]; index = i; }
  }
  for (int offset = 16; offset > 0; offset >>= 1) {  // expect: WRP002
    const float other = __shfl_xor_sync(0xffffffff, best, offset);  // expect: SYN001 MSK001
    const int other_index = __shfl_xor_sync(0xffffffff, index, offset);  // expect: SYN001 MSK001
    if (other > best) { best = other; index = other_index; }
  }
  if (lane == 0) { best_val[warp] = best; best_idx[warp] = index; }
  __syncthreads();
  if (warp == 0) {
    best = lane < 8 ? best_val[lane] : -INFINITY;  // expect: WRP012
    index = lane < 8 ? best_idx[lane] : 0;  // expect: WRP012
    for (int offset = 4; offset > 0; offset >>= 1) {
      const float other = __shfl_xor_sync(0xffffffff, best, offset);  // expect: SYN001 MSK001
      const int other_index = __shfl_xor_sync(0xffffffff, index, offset);  // expect: SYN001 MSK001
      if (other > best) { best = other; index = other_index; }
    }
    if (lane == 0) out[blockIdx.x] = index;
  }
}

__global__ void block_sum(const float* x, float* out) {
  __shared__ float partial[kWarps];
  float v = x[blockIdx.x * 256 + threadIdx.x];
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffff, v, offset);  // expect: WRP002 SYN001 MSK001
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;  // expect: WRP001 WRP001
  __syncthreads();
  if (threadIdx.x < kWarps) {  // expect: WRP012
    v = partial[threadIdx.x];
  }
}

// Slots the block fills before any warp writes its own: every slot holds a value on wave64 too.
__global__ void block_sum_filled(const float* x, float* out) {
  __shared__ float partial[8];
  if (threadIdx.x < 8) partial[threadIdx.x] = 0.0f;
  __syncthreads();
  float v = x[blockIdx.x * 256 + threadIdx.x];
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffff, v, offset);  // expect: WRP002 SYN001 MSK001
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;  // expect: WRP001 WRP001
  __syncthreads();
  if (threadIdx.x < 8) out[threadIdx.x] = partial[threadIdx.x];
}
