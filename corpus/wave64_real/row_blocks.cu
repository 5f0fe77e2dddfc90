// corpus: nvcc
// Blocks 32 threads wide: threadIdx.x is the lane, threadIdx.y the warp (a norm kernel's
// `dim3 nthrs(32, num_warps)` and `tx + ty * 32`, a segment kernel's `dim3(32, 8)`, a
// dequantiser's `<<<blocks, 32>>>`). On a 64-lane wavefront two rows share a wavefront: every
// 32 below is the row's width and right as written; only what reaches past a row must change.
#include <cuda_runtime.h>  // expect: API005

__global__ void rms_rows(const float* in, float* out, int d, float eps) {
  const unsigned tx = threadIdx.x, ty = threadIdx.y;
  constexpr unsigned row = 32;
  const unsigned thread_id = tx + ty * row;
  const unsigned threads = blockDim.y * row;
  extern __shared__ float partial[];
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
  float scale = rsqrtf(partial[0] / d + eps);
  for (unsigned i = thread_id; i < d; i += threads) out[blockIdx.x * d + i] = in[blockIdx.x * d + i] * scale;
}

__global__ void centre_rows(const float* in, float* out, int rows, int cols) {
  int r = blockIdx.x * blockDim.y + threadIdx.y;
  if (r >= rows) return;
  float first = __shfl_sync(0xffffffffu, in[r * cols + threadIdx.x], 0);  // expect: SYN001 MSK001 WRP016
  float seen = 0.f;
  for (int c = threadIdx.x; c < cols; c += 32) seen = fmaxf(seen, in[r * cols + c]);
  unsigned any_big = __ballot_sync(0xffffffffu, seen > 4.f);  // expect: SYN001 MSK001 WRP017
  bool all_small = __all_sync(0xffffffffu, seen < 1.f);  // expect: SYN001 MSK001
  for (int c = threadIdx.x; c < cols; c += 32) out[r * cols + c] = in[r * cols + c] - first + (any_big ? 1.f : 0.f) + all_small;
}

__global__ void dequantise(const signed char* q, const float* scales, float* out) {
  float s = scales[blockIdx.x];
  float v = q[blockIdx.x * 32 + threadIdx.x] * s;
  float lowest = v;
  for (int o = 16; o > 0; o >>= 1) lowest = fminf(lowest, __shfl_down_sync(0xffffffffu, lowest, o));  // expect: SYN001 MSK001 WRP016
  lowest = __shfl_sync(0xffffffffu, lowest, 0);  // expect: SYN001 MSK001 WRP016
  if (threadIdx.x == 31) out[gridDim.x * 32 + blockIdx.x] = lowest;
  out[blockIdx.x * 32 + threadIdx.x] = v - lowest;
}

void launch_rows(const float* in, float* out, int rows, int d, cudaStream_t stream) {  // expect: API003
  const unsigned num_warps = (d + 31) / 32 < 32 ? (d + 31) / 32 : 32;
  dim3 nthrs(32, num_warps);
  rms_rows<<<rows, nthrs, num_warps * sizeof(float), stream>>>(in, out, d, 1e-6f);  // expect: API006
  centre_rows<<<(rows + 7) / 8, dim3(32, 8), 0, stream>>>(in, out, rows, d);  // expect: API006
}

void launch_dequantise(const signed char* q, const float* scales, float* out, int blocks) {
  dequantise<<<blocks, 32>>>(q, scales, out);  // expect: API006
}
