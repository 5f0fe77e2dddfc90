// corpus: nvcc
// A grid planned on the host from a block 32 threads tall (the shape of llama.cpp's diag_mask_inf):
// `(ncols + MASK_BLOCK - 1) / MASK_BLOCK` counts the blocks of a grid, each MASK_BLOCK threads,
// and is stored where the launch takes its grid from. No warp is counted: 64-lane wavefronts
// change nothing here.
#include <cfloat>
#include <cuda_runtime.h>  // expect: API005

#define MASK_BLOCK 32

__global__ void mask_upper(const float* x, float* dst, int ncols, int n_past) {
  const int col = blockDim.y * blockIdx.y + threadIdx.y;
  const int row = blockIdx.x;
  if (col >= ncols) return;
  const int i = row * ncols + col;
  dst[i] = x[i] - (col > n_past + row) * FLT_MAX;
}

void mask_upper_rows(const float* x, float* dst, int ncols, int nrows, int n_past, cudaStream_t stream) {  // expect: API003
  const dim3 block_dims(1, MASK_BLOCK, 1);
  const int block_num_x = (ncols + MASK_BLOCK - 1) / MASK_BLOCK;
  const dim3 block_nums(nrows, block_num_x, 1);
  mask_upper<<<block_nums, block_dims, 0, stream>>>(x, dst, ncols, n_past);  // expect: API006
}
