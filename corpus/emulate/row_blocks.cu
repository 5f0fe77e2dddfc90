// Verify cases for porter's CPU device: kernels whose blocks are 32 threads wide (threadIdx.x the
// lane, threadIdx.y the row), launched as `dim3(32, 4)` and with 32 threads. At 64 lanes two rows share
// a wavefront: their 32s stay, and the shuffles that could leave a row get a width of 32.
__global__ void rms_rows(const float* in, float* out, int d) {
  const unsigned tx = threadIdx.x, ty = threadIdx.y;
  constexpr unsigned row = 32;
  const unsigned thread_id = tx + ty * row;
  const unsigned threads = blockDim.y * row;
  __shared__ float partial[32];
  float sum = 0.f;
  for (unsigned i = thread_id; i < d; i += threads) sum += in[blockIdx.x * d + i] * in[blockIdx.x * d + i];
  for (unsigned offset = row / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);  // expect: SYN001 MSK001
  if (tx == 0) partial[ty] = sum;
  __syncthreads();
  if (ty == 0) {
    sum = tx < blockDim.y ? partial[tx] : 0.f;
    for (unsigned offset = row / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);  // expect: SYN001 MSK001
    if (tx == 0) partial[0] = sum;
  }
  __syncthreads();
  float scale = rsqrtf(partial[0] / d + 1e-6f);
  for (unsigned i = thread_id; i < d; i += threads) out[blockIdx.x * d + i] = in[blockIdx.x * d + i] * scale;
}

__global__ void centre_rows(const float* in, float* out, int rows, int cols) {
  int r = blockIdx.x * blockDim.y + threadIdx.y;
  if (r >= rows) return;
  float first = __shfl_sync(0xffffffffu, in[r * cols + threadIdx.x], 0);  // expect: SYN001 MSK001 WRP016
  float top = -1e30f;
  for (int c = threadIdx.x; c < cols; c += 32) top = fmaxf(top, in[r * cols + c]);
  for (int o = 16; o > 0; o >>= 1) top = fmaxf(top, __shfl_down_sync(0xffffffffu, top, o));  // expect: SYN001 MSK001 WRP016
  top = __shfl_sync(0xffffffffu, top, 0);  // expect: SYN001 MSK001 WRP016
  for (int c = threadIdx.x; c < cols; c += 32) out[r * cols + c] = in[r * cols + c] - first + top;
}

__global__ void dequantise(const int* q, const float* scales, float* out) {
  float lowest = 1e30f;
  for (int i = threadIdx.x; i < 64; i += 32) lowest = fminf(lowest, q[blockIdx.x * 64 + i] * scales[blockIdx.x]);
  for (int o = 16; o > 0; o >>= 1) lowest = fminf(lowest, __shfl_down_sync(0xffffffffu, lowest, o));  // expect: SYN001 MSK001 WRP016
  lowest = __shfl_sync(0xffffffffu, lowest, 0);  // expect: SYN001 MSK001 WRP016
  for (int i = threadIdx.x; i < 64; i += 32) out[blockIdx.x * 64 + i] = q[blockIdx.x * 64 + i] * scales[blockIdx.x] - lowest;
}

__global__ void row_ranks(const float* in, int* rank, int* count) {
  const int tid = threadIdx.x + threadIdx.y * 32;
  const int at = blockIdx.x * blockDim.y * 32 + tid;
  const float v = in[at];
  unsigned hits = __ballot_sync(0xffffffffu, v > 0.f);  // expect: SYN001 MSK001 WRP017
  rank[at] = v > 0.f ? __popc(hits & ((1u << threadIdx.x) - 1)) : -1;
  if (threadIdx.x == 0) count[blockIdx.x * blockDim.y + threadIdx.y] = __popc(hits) * 100 + __ffs(hits);
}
