// corpus: nvcc
// out = gelu(A B + bias), f16 in and out, with half accumulators (A and B row-major). Each warp
// computes one 16x16 tile, stages it in shared memory (a fragment's layout is opaque) and applies
// the bias of each column and the activation on the way out. Written for porter.
#include <mma.h>  // expect: MMA001
#include <cuda_fp16.h>  // expect: API005
using namespace nvcuda;

constexpr int kWarps = 4;

__device__ inline float gelu(float x) { return 0.5f * x * (1.0f + tanhf(0.7978845608f * (x + 0.044715f * x * x * x))); }

__global__ void gemm_bias_gelu(const half* a, const half* b, const half* bias, half* out, int m, int n, int k) {
  __shared__ half staged[kWarps][16 * 16];
  const int warp = threadIdx.x / warpSize;
  const int lane = threadIdx.x % warpSize;
  const int tiles_n = n / 16;
  const int tile = blockIdx.x * (blockDim.x / warpSize) + warp;
  if (tile >= (m / 16) * tiles_n) return;
  const int row = (tile / tiles_n) * 16, column = (tile % tiles_n) * 16;
  wmma::fragment<wmma::accumulator, 16, 16, 16, half> acc;  // expect: MMA001
  wmma::fill_fragment(acc, __float2half(0.0f));  // expect: MMA001
  for (int kk = 0; kk < k; kk += 16) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;  // expect: MMA001
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb;  // expect: MMA001
    wmma::load_matrix_sync(fa, a + row * k + kk, k);  // expect: MMA001
    wmma::load_matrix_sync(fb, b + kk * n + column, n);  // expect: MMA001
    wmma::mma_sync(acc, fa, fb, acc);  // expect: MMA001
  }
  wmma::store_matrix_sync(staged[warp], acc, 16, wmma::mem_row_major);  // expect: MMA001
  __syncwarp();  // expect: SYN002
  for (int i = lane; i < 256; i += warpSize) {
    const int r = i / 16, col = i % 16;
    const float v = __half2float(staged[warp][i]) + __half2float(bias[column + col]);
    out[(row + r) * n + column + col] = __float2half(gelu(v));
  }
}
