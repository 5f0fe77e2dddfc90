// corpus: nvcc
// Block reductions that size and read back their per-warp slots by the block's count of 32-lane
// warps, written as a constant (8 warps of a 256-thread block), as hand-written norm kernels do. On
// wave64 the block has 4 wavefronts: slots 4-7 are read but never written. (The `?:` form, and
// the run that shows it on the CPU device, is block_argmax in ../emulate/reductions.cu.)
#include <cuda_runtime.h>  // expect: API005

constexpr int kWarps = 8;  // 256 threads

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
