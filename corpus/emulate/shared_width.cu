// corpus: nvcc
// Verify case for porter's CPU device: one `#define WARP 32` serving two kernels. `row_max` is
// launched with 32 threads a block, one row each, and strides its row by WARP; `block_sum` takes
// WARP as its warps' width (lane, warp id, a ladder from WARP / 2, one slot per warp). Widened at
// its definition, as porter did while only `block_sum`'s uses counted, WARP would make `row_max`'s
// 32 threads stride by 64 and skip half of each row. The definition stays: `block_sum`'s uses take
// the wavefront's width each (WRP001, WRP002, WRP003), and `row_max`'s mask is its row's (MSK001).
// Written for porter.

#define WARP 32

__global__ void row_max(const float* __restrict__ x, float* out, int cols) {
  const int lane = threadIdx.x % WARP;
  float best = -1e30f;
  for (int k = lane; k < cols; k += WARP) best = fmaxf(best, x[blockIdx.x * cols + k]);
  for (int offset = WARP / 2; offset > 0; offset /= 2) best = fmaxf(best, __shfl_xor_sync(0xffffffff, best, offset));  // expect: SYN001 MSK001
  if (lane == 0) out[blockIdx.x] = best;
}

__global__ void block_sum(const float* __restrict__ x, float* out, int n) {
  __shared__ float partial[256 / WARP];  // expect: WRP003
  const int lane = threadIdx.x % WARP;  // expect: WRP001
  const int warp = threadIdx.x / WARP;  // expect: WRP001
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  float v = i < n ? x[i] : 0.0f;
  for (int offset = WARP / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);  // expect: WRP002 SYN001 MSK001
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (int w = 0; w < blockDim.x / WARP; ++w) total += partial[w];  // expect: WRP001
    out[blockIdx.x] = total;
  }
}

#if !defined(PORTER_EMULATOR)  // the host side, which porter's CPU device does not build
void launch_all(const float* x, float* row_out, float* sum_out, int rows, int cols, int n, cudaStream_t stream) {  // expect: API003
  row_max<<<rows, 32, 0, stream>>>(x, row_out, cols);  // expect: API006
  block_sum<<<(n + 255) / 256, 256, 0, stream>>>(x, sum_out, n);  // expect: API006
}
#endif
