// Verify cases for porter's CPU device: reductions written for 32-lane warps, as real kernels do.

// A block sum: each warp reduces with shuffles, lane 0 parks the warp's partial in shared memory,
// and the first warp reduces the partials.
__global__ void block_sum(const float* in, float* out, int n) {
  __shared__ float partial[32];
  int lane = threadIdx.x & 31;  // expect: WRP001
  int warp = threadIdx.x >> 5;  // expect: WRP001
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v += in[i];
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffff, v, offset);  // expect: MSK001 SYN001 WRP002
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < blockDim.x / 32 ? partial[lane] : 0.0f;  // expect: WRP001
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffff, v, offset);  // expect: MSK001 SYN001 WRP002
    if (lane == 0) out[blockIdx.x] = v;
  }
}

// A warp sum per 32 threads, added atomically into the block's slot.
__global__ void warp_sum_atomic(const float* in, float* out, int columns) {
  float v = 0.0f;
  for (int c = threadIdx.x; c < columns; c += blockDim.x) v += in[blockIdx.x * columns + c];
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffff, v, offset);  // expect: MSK001 SYN001
  if ((threadIdx.x & 31) == 0) atomicAdd(&out[blockIdx.x], v);
}

// The largest value of each block, by a warp max then an atomic max on its bits (values are >= 0).
__global__ void block_max(const float* in, unsigned* out, int n) {
  float v = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) v = fmaxf(v, fabsf(in[i]));
  for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, offset));  // expect: MSK001 SYN001
  if (threadIdx.x % 32 == 0) atomicMax(out, __float_as_uint(v));
}

// Rows of a matrix, one warp per row in a grid-stride loop, lanes striding over the columns.
__global__ void row_softmax(const float* in, float* out, int rows, int cols) {
  const int lane = threadIdx.x % 32;
  const int warps = blockDim.x / 32;
  for (int row = blockIdx.x * warps + threadIdx.x / 32; row < rows; row += gridDim.x * warps) {
    const float* x = in + row * cols;
    float m = -1e30f;
    for (int c = lane; c < cols; c += 32) m = fmaxf(m, x[c]);
    for (int offset = 16; offset > 0; offset /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, offset));  // expect: MSK001 SYN001
    float s = 0.0f;
    for (int c = lane; c < cols; c += 32) s += __expf(x[c] - m);
    for (int offset = 16; offset > 0; offset /= 2) s += __shfl_xor_sync(0xffffffff, s, offset);  // expect: MSK001 SYN001
    for (int c = lane; c < cols; c += 32) out[row * cols + c] = __expf(x[c] - m) / s;
  }
}

// Per-warp integer sums with the reduce intrinsic, then one atomic per warp.
__global__ void reduce_intrinsic(const int* in, int* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned v = i < n ? static_cast<unsigned>(in[i]) : 0u;
  unsigned total = __reduce_add_sync(0xffffffff, v);  // expect: MSK001 SYN004
  if ((threadIdx.x & 31) == 0) atomicAdd(out, static_cast<int>(total));  // expect: WRP001
}

// The index of each block's largest value: one slot per 32-lane warp of the 256-thread block,
// read back up to 8 (that block's warps at 32 lanes; 4 wavefronts at 64).
__global__ void block_argmax(const float* x, int* out, int n) {
  __shared__ float best_val[8];
  __shared__ int best_idx[8];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float best = -INFINITY;
  int index = 0;
  for (int i = blockIdx.x * 256 + threadIdx.x; i < n; i += 256 * gridDim.x) {
    if (x[i] > best) { best = x[i]; index = i; }
  }
  for (int offset = 16; offset > 0; offset >>= 1) {
    const float other = __shfl_xor_sync(0xffffffff, best, offset);  // expect: MSK001 SYN001
    const int other_index = __shfl_xor_sync(0xffffffff, index, offset);  // expect: MSK001 SYN001
    if (other > best) { best = other; index = other_index; }
  }
  if (lane == 0) { best_val[warp] = best; best_idx[warp] = index; }
  __syncthreads();
  if (warp == 0) {
    best = lane < 8 ? best_val[lane] : -INFINITY;
    index = lane < 8 ? best_idx[lane] : 0;
    for (int offset = 4; offset > 0; offset >>= 1) {
      const float other = __shfl_xor_sync(0xffffffff, best, offset);  // expect: MSK001 SYN001
      const int other_index = __shfl_xor_sync(0xffffffff, index, offset);  // expect: MSK001 SYN001
      if (other > best) { best = other; index = other_index; }
    }
    if (lane == 0) out[blockIdx.x] = index;
  }
}

// Threads 0-31 fold the block's 64 values and finish with a butterfly among themselves: right at
// any width as written, since no offset reaches past lane 31. porter leaves the ladder alone (from
// 32 it would read lanes the `< 32` test keeps idle).
__global__ void fold_sum_64(const float* in, float* out) {
  __shared__ float s[64];
  s[threadIdx.x] = in[blockIdx.x * 64 + threadIdx.x];
  __syncthreads();
  if (threadIdx.x < 32) {
    float v = s[threadIdx.x] + s[threadIdx.x + 32];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffff, v, offset);  // expect: MSK001 SYN001
    if (threadIdx.x == 0) out[blockIdx.x] = v;
  }
}

// The last warp of a block sum behind `threadIdx.x < 32`, its ladder from `warpSize / 2`: right on
// NVIDIA, where the two agree; on wave64 lane 0 adds lanes 32-63, which the test keeps idle (WRP014).
__global__ void last_warp_sum(const float* in, float* out) {
  __shared__ float partial[32];
  const int warp = threadIdx.x / warpSize, lane = threadIdx.x % warpSize;
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);  // expect: MSK001 SYN001
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (threadIdx.x < 32) {  // expect: WRP014
    v = threadIdx.x < blockDim.x / warpSize ? partial[threadIdx.x] : 0.0f;
    for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);  // expect: MSK001 SYN001
    if (threadIdx.x == 0) out[blockIdx.x] = v;
  }
}
