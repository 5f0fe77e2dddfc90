// corpus: nvcc
// C = A B with WMMA, f16 inputs (A row-major, B column-major) and float accumulators. Each warp owns
// 16x16 tiles of C (a grid-stride loop over tiles) and stages the 16x16 blocks of A and B it needs
// through shared memory, one warp's slice each, before loading its fragments. Written for porter.
#include <mma.h>  // expect: MMA001
#include <cuda_fp16.h>  // expect: API005
using namespace nvcuda;

constexpr int kMaxWarps = 8;

__global__ void tiled_gemm(const half* a, const half* b, float* c, int m, int n, int k) {
  __shared__ half a_stage[kMaxWarps][16 * 16];
  __shared__ half b_stage[kMaxWarps][16 * 16];
  const int lane = threadIdx.x % 32;  // expect: WRP001
  const int warp = threadIdx.x / 32;  // expect: WRP001
  const int warps_per_block = blockDim.x / 32;  // expect: WRP001
  if (warp >= kMaxWarps) return;
  const int tiles_n = n / 16, tiles = (m / 16) * tiles_n;
  for (int tile = blockIdx.x * warps_per_block + warp; tile < tiles; tile += gridDim.x * warps_per_block) {
    const int row = (tile / tiles_n) * 16, column = (tile % tiles_n) * 16;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;  // expect: MMA001
    wmma::fill_fragment(acc, 0.0f);  // expect: MMA001
    for (int kk = 0; kk < k; kk += 16) {
      for (int i = lane; i < 256; i += 32) {  // expect: WRP005
        a_stage[warp][i] = a[(row + i / 16) * k + kk + i % 16];
        b_stage[warp][i] = b[(column + i / 16) * k + kk + i % 16];
      }
      __syncwarp();  // expect: SYN002
      wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;  // expect: MMA001
      wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;  // expect: MMA001
      wmma::load_matrix_sync(fa, a_stage[warp], 16);  // expect: MMA001
      wmma::load_matrix_sync(fb, b_stage[warp], 16);  // expect: MMA001
      wmma::mma_sync(acc, fa, fb, acc);  // expect: MMA001
      __syncwarp();  // expect: SYN002
    }
    wmma::store_matrix_sync(c + row * n + column, acc, n, wmma::mem_row_major);  // expect: MMA001
  }
}
