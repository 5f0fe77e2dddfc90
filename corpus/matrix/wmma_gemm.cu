// corpus: nvcc
// A 16x16x16 half-precision tile GEMM with WMMA, plus a shape rocWMMA lacks.
#include <mma.h>  // expect: MMA001
#include <cuda_fp16.h>  // expect: API005
using namespace nvcuda;

__global__ void tile_gemm(const half* a, const half* b, float* c, int lda, int ldb, int ldc) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;  // expect: MMA001
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;  // expect: MMA001
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;  // expect: MMA001
  wmma::fill_fragment(acc, 0.0f);  // expect: MMA001
  wmma::load_matrix_sync(fa, a, lda);  // expect: MMA001
  wmma::load_matrix_sync(fb, b, ldb);  // expect: MMA001
  wmma::mma_sync(acc, fa, fb, acc);  // expect: MMA001
  wmma::store_matrix_sync(c, acc, ldc, wmma::mem_row_major);  // expect: MMA001
}

__global__ void tall_tile(const half* a, float* c) {
  wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::row_major> fa;  // expect: MMA003
  wmma::load_matrix_sync(fa, a, 16);  // expect: MMA001
}

__global__ void int8_tile(const signed char* a, int* c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;  // expect: MMA004
  wmma::load_matrix_sync(fa, a, 16);  // expect: MMA001
}
