// corpus: nvcc
// Verify case for porter's CPU device: kernels whose blocks are 32 threads wide through a name,
// not a literal. `token_dots` is launched with `dim3 block(threads_x, threads_y)` after
// `int threads_x = 32;` (the shape of a decode-attention kernel: one 32-thread row per token, its
// reduction a `__shfl_down_sync` ladder from WARP_SIZE / 2 with no width); `row_sums` with
// `dim3 block(kRowThreads, kRows)`, a constant of the file that no warp operation takes as its
// width, while its helper hands WARP_SIZE to its shuffles. Either way WARP_SIZE is the row's width
// and right as written on a 64-lane wavefront, where two rows share it; widened to 64 (as porter
// did before it read the names), the ladder starts at 32 and adds the next row's values in.
// Written for porter.
constexpr int WARP_SIZE = 32;
constexpr int kRowThreads = 32;
constexpr int kRows = 4;

__global__ void token_dots(const float* q, const float* k, float* out, int d) {
  const int lane = threadIdx.x, token = blockIdx.x * blockDim.y + threadIdx.y;
  float s = 0.0f;
  for (int i = lane; i < d; i += blockDim.x) s += q[i] * k[token * d + i];
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) s += __shfl_down_sync(0xffffffff, s, offset);  // expect: SYN001 WRP016 MSK001
  if (lane == 0) out[token] = s;
}

__device__ float row_sum(float v) {
  for (int offset = WARP_SIZE / 2; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xffffffff, v, offset, WARP_SIZE);  // expect: SYN001 MSK001
  return v;
}

__global__ void row_sums(const float* x, float* y, int cols) {
  const int row = blockIdx.x * kRows + threadIdx.y;
  float v = 0.0f;
  for (int c = threadIdx.x; c < cols; c += kRowThreads) v += x[row * cols + c];
  v = row_sum(v);
  if (threadIdx.x == 0) y[row] = v;
}

#if !defined(PORTER_EMULATOR)  // the host side, which porter's CPU device does not build
void launch_token_dots(const float* q, const float* k, float* out, int tokens, int d) {
  int threads_x = 32;
  int threads_y = 8;
  dim3 block(threads_x, threads_y);
  token_dots<<<tokens / threads_y, block>>>(q, k, out, d);  // expect: API006
}

void launch_row_sums(const float* x, float* y, int rows, int cols) {
  dim3 block(kRowThreads, kRows);
  row_sums<<<rows / kRows, block>>>(x, y, cols);  // expect: API006
}
#endif
