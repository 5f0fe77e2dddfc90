// A planted port of ../alias_rows.cu as porter made it before it followed a collective's
// namespace-scope alias into the row kernels that use it: CUB renamed, its width left to hipCUB's
// default, the wavefront. Right at 32 lanes; at 64 each reduction sums rows 2k and 2k+1 together.
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
