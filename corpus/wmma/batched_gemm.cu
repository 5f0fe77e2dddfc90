// corpus: nvcc
// A batch of independent 16x16x16 products in bfloat16, one per warp: A column-major, B row-major,
// C stored column-major. The warp's index counts warpSize lanes, so nothing here assumes 32.
// Written for porter.
#include <mma.h>  // expect: MMA001
#include <cuda_bf16.h>  // expect: API005
using namespace nvcuda;

__global__ void batched_gemm(const __nv_bfloat16* a, const __nv_bfloat16* b, float* c, int batch) {  // expect: API003 API003
  const int problem = (blockIdx.x * blockDim.x + threadIdx.x) / warpSize;
  if (problem >= batch) return;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::col_major> fa;  // expect: MMA001 API003
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> fb;  // expect: MMA001 API003
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;  // expect: MMA001
  wmma::load_matrix_sync(fa, a + problem * 256, 16);  // expect: MMA001
  wmma::load_matrix_sync(fb, b + problem * 256, 16);  // expect: MMA001
  wmma::fill_fragment(acc, 0.0f);  // expect: MMA001
  wmma::mma_sync(acc, fa, fb, acc);  // expect: MMA001
  wmma::store_matrix_sync(c + problem * 256, acc, 16, wmma::mem_col_major);  // expect: MMA001
}
