// corpus: nvcc
// Verify case for porter's CPU device: a matrix-vector product whose block is 4 rows of 32
// threads (`dim3 block(32, 4)`: threadIdx.x the lane, threadIdx.y the row), each row summed by
// a CUB warp reduction named once at namespace scope (`using WarpReduce = cub::WarpReduce<float>;`),
// the shape of a public LLaMA-2 inference port's mat_vec kernels. CUB's default width is NVIDIA's
// 32, the row; hipCUB's is the wavefront, so at 64 lanes each reduction sums two rows and both
// rows' lane 0 write that sum. The port gives the alias the row's width (WRP020), as it does to a
// collective written in the kernel. Written for porter.
#include <cub/cub.cuh>  // expect: LIB007

using WarpReduce = cub::WarpReduce<float>;  // expect: LIB007 WRP020
using WarpStorage = WarpReduce::TempStorage;

#define ROWS_PER_BLOCK 4

template <typename T>
__device__ void mat_vec(T* out, const T* vector, const T* matrix, int rows, int cols) {
  const int row = blockIdx.x * blockDim.y + threadIdx.y;
  float sum = 0.0f;
  for (int col = threadIdx.x; row < rows && col < cols; col += blockDim.x) {
    sum += (float)matrix[row * cols + col] * (float)vector[col];
  }
  __shared__ WarpStorage storage[ROWS_PER_BLOCK];
  sum = WarpReduce(storage[threadIdx.y]).Sum(sum);
  if (row < rows && threadIdx.x == 0) out[row] = (T)sum;
}

__global__ void mat_vec_rows(float* out, const float* vector, const float* matrix, int rows, int cols) {
  mat_vec<float>(out, vector, matrix, rows, cols);
}

#if !defined(PORTER_EMULATOR)  // the host side, which porter's CPU device does not build
void launch_mat_vec_rows(float* out, const float* vector, const float* matrix, int rows, int cols) {
  dim3 block(32, ROWS_PER_BLOCK);
  mat_vec_rows<<<(rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK, block>>>(out, vector, matrix, rows, cols);  // expect: API006
}
#endif
