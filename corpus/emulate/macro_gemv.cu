// corpus: nvcc
// Verify case for porter's CPU device: a warp per output row of a matrix-vector product, its width
// a `#define` of this file that the kernel alone uses, its rows before the block counted from the
// block's width: `row = blockIdx.x * (blockDim.x / ROW_THREADS) + threadIdx.x / ROW_THREADS`, the
// host launching (rows + 3) / 4 blocks of 128, four rows to a block. The shuffles' ladder starts at
// ROW_THREADS / 2, so the macro reads as a warp width; but the host's grid counts rows of 32 threads
// and porter cannot widen it with the kernel: with ROW_THREADS made the 64-lane wavefront, a block
// takes rows 0-1 of its four and rows 2-3 of every block are never written. The 32s are the rows'
// width; what changes is the ladder's shuffle, given the row's width (WRP016). Written for porter.

#define ROW_THREADS 32

__global__ void macro_gemv(const float* __restrict__ matrix, const float* __restrict__ vector, float* out, int rows, int cols) {
  const int lane = threadIdx.x % ROW_THREADS;
  const int row = blockIdx.x * (blockDim.x / ROW_THREADS) + threadIdx.x / ROW_THREADS;
  if (row >= rows) return;
  float sum = 0.0f;
  for (int k = lane; k < cols; k += ROW_THREADS) sum += matrix[row * cols + k] * vector[k];
  for (int offset = ROW_THREADS / 2; offset > 0; offset /= 2) sum += __shfl_down_sync(0xffffffff, sum, offset);  // expect: SYN001 WRP016 MSK001
  if (lane == 0) out[row] = sum;
}

#if !defined(PORTER_EMULATOR)  // the host side, which porter's CPU device does not build
void launch_macro_gemv(const float* matrix, const float* vector, float* out, int rows, int cols, cudaStream_t stream) {  // expect: API003
  macro_gemv<<<(rows + 3) / 4, 128, 0, stream>>>(matrix, vector, out, rows, cols);  // expect: API006
}
#endif
