// Verify cases for porter's CPU device: faults it must report, never hang on or pass over.

// Half the block waits at a barrier that the other half, spinning on a flag the first half sets
// after it, never reaches: a deadlock on any GPU.
__global__ void divergent_barrier(int* out) {
  __shared__ int flag;
  if (threadIdx.x == 0) flag = 0;
  __syncthreads();
  if (threadIdx.x < 32) {
    __syncthreads();
    atomicExch(&flag, 1);
  } else {
    while (atomicAdd(&flag, 0) == 0) {
    }
  }
  out[threadIdx.x] = flag;
}

// A per-lane shared array sized for 32 lanes, indexed by a lane id that runs past it. No warp
// operation reads the lanes, so porter reports nothing: launched with 64 threads, it faults on any GPU.
__global__ void lane_table_overflow(const int* in, int* out) {
  __shared__ int table[32];
  int lane = threadIdx.x;
  table[lane] = in[threadIdx.x];
  __syncthreads();
  out[threadIdx.x] = table[31 - (lane & 31)];
}

// Thirty-two warps of 64 lanes: a block of 2048 threads, past the 1024 a block may hold. The GPU
// refuses the launch (cudaErrorInvalidConfiguration) and the kernel never runs; the CPU device could
// run it, and must refuse it too (a port that widened 32 warps of 32 lanes would pass otherwise).
__global__ void oversized_block(int* out) { out[blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x; }

// A shared-memory block sum finished warp-synchronously, `s[tid] += s[tid + d]` between
// `__syncwarp()`s: a lane reads the slot another lane of its warp writes in the same step, a race
// under independent thread scheduling (CUDA's programming guide writes each step as a read, a
// `__syncwarp()`, then the write). Its sum depends on the order the lanes run in: the CPU device
// reports the race, and takes neither order's sum for the reference.
__global__ void warp_synchronous_race(const float* in, float* out) {
  __shared__ float s[128];
  const int tid = threadIdx.x;
  s[tid] = in[blockIdx.x * blockDim.x + tid];
  __syncthreads();
  if (tid < 64) s[tid] += s[tid + 64];
  __syncthreads();
  if (tid < 32) {
    volatile float* v = s;
    for (int d = 32; d > 0; d >>= 1) {
      v[tid] += v[tid + d];
      __syncwarp();  // expect: SYN002
    }
  }
  if (tid == 0) out[blockIdx.x] = s[0];
}
