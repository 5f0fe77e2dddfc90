// corpus: nvcc
// Verify case for porter's CPU device: "one warp per row" kernels in a one-dimensional block.
// Each 32 threads take a row (`threadIdx.x / 32`, `>> 5`), R rows to a block (`blockIdx.x * R +
// warp`), and the launch gives the block R * 32 threads (`WARPS_PER_BLOCK * 32`, a constant
// `kThreads = 32 * kWarpsPerBlock`). The 32s are the rows' width: on a 64-lane wavefront two
// rows share it and, kept at 32, each is still summed alone. Widened to 64 (as porter did before
// it read the launch, planted/warp_rows_widened.cu), the block holds R / 2 wavefronts and rows
// R / 2 .. R - 1 of each block are never summed. `token_rows` broadcasts from lanes 0-7 of its
// row (flashinfer's MLA K/V pack has this shape): without a width the second row of a wavefront
// reads the first row's lanes, so porter gives that shuffle a width of 32. `global_row_max` takes
// a row per 32 threads of the grid (`(blockIdx.x * blockDim.x + threadIdx.x) / 32`), the host
// sizing the grid at 32 threads a row. Written for porter.
#define WARPS_PER_BLOCK 8
constexpr int kWarpsPerBlock = 4;
constexpr int kThreads = 32 * kWarpsPerBlock;

__global__ void row_sums(const float* x, float* y, int rows, int cols) {
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  int row = blockIdx.x * WARPS_PER_BLOCK + warp;
  if (row >= rows) return;
  float s = 0.f;
  for (int c = lane; c < cols; c += 32) s += x[row * cols + c];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffff, s, o);  // expect: SYN001 MSK001
  if (lane == 0) y[row] = s;
}

__global__ void token_rows(const float* table, const float* x, float* y, int tokens) {
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int token = blockIdx.x * kWarpsPerBlock + warp;
  if (token >= tokens) return;
  float scale = 0.f;
  if (lane < 8) scale = table[token * 8 + lane];
  const float mine = __shfl_sync(0xffffffffu, scale, lane & 7);  // expect: SYN001 WRP016 MSK001
  y[token * 32 + lane] = x[token * 32 + lane] * mine;
}

// Each 32 threads of the grid take a row (a global warp index), and the host launches 32 threads
// a row: widened, the kernel would take half the rows it is launched for.
__global__ void global_row_max(const float* x, float* y, int rows, int cols) {
  const int gwarp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (gwarp >= rows) return;
  float m = -1e30f;
  for (int c = lane; c < cols; c += 32) m = fmaxf(m, x[gwarp * cols + c]);
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));  // expect: SYN001 MSK001
  if (lane == 0) y[gwarp] = m;
}

#if !defined(PORTER_EMULATOR)  // the host side, which porter's CPU device does not build
void launch_row_sums(const float* x, float* y, int rows, int cols) {
  row_sums<<<(rows + WARPS_PER_BLOCK - 1) / WARPS_PER_BLOCK, WARPS_PER_BLOCK * 32>>>(x, y, rows, cols);  // expect: API006
}

void launch_token_rows(const float* table, const float* x, float* y, int tokens) {
  token_rows<<<(tokens + kWarpsPerBlock - 1) / kWarpsPerBlock, kThreads>>>(table, x, y, tokens);  // expect: API006
}

void launch_global_row_max(const float* x, float* y, int rows, int cols) {
  const int threads = 128;
  global_row_max<<<(rows * 32 + threads - 1) / threads, threads>>>(x, y, rows, cols);  // expect: API006
}
#endif
