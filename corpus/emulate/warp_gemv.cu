// corpus: nvcc
// Verify case for porter's CPU device: a warp per output row of a matrix-vector product, its
// rows counted from the kernel's block width, the shape of bitsandbytes' 4-bit GEMV
// (kgemm_4bit_inference_naive). `row = (THREADS / 32) * blockIdx.x + threadIdx.x / 32`: each 32
// threads of the grid take a row, the host launching (rows + 3) / 4 blocks of 128; each lane takes
// VALUES_PER_LANE consecutive elements and steps by 32 of them; cub::WarpReduce sums the row.
// The 32s are the rows' width and right at 64 lanes as written. What changes is the reduction:
// hipCUB's WarpReduce<float> is as wide as the wavefront, so it is given the row's 32 (WRP020).
// Widened instead (the /32 and %32 made the wavefront, as porter did before it read this index;
// planted/warp_gemv_widened.cu), a block takes 2 rows of the 4 the host planned, and the stride
// of 32 values sends lanes 32-63 over the elements lanes 0-31 also take: ROCm's bitsandbytes fork
// shipped that port and found half its rows wrong on MI300X. Written for porter.
#include <cub/cub.cuh>  // expect: LIB007

#define VALUES_PER_LANE 4

template <int THREADS>
__global__ void warp_gemv(const float* __restrict__ matrix, const float* __restrict__ vector, float* out, int rows, int cols) {
  typedef cub::WarpReduce<float> WarpReduce;  // expect: LIB007 WRP020
  __shared__ typename WarpReduce::TempStorage temp_storage[THREADS / 32];
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int row = (THREADS / 32) * blockIdx.x + warp;
  float sum = 0.0f;
  for (int k = lane * VALUES_PER_LANE; k < cols; k += 32 * VALUES_PER_LANE) {
    for (int v = 0; v < VALUES_PER_LANE; ++v) {
      if (row < rows && k + v < cols) sum += matrix[row * cols + k + v] * vector[k + v];
    }
  }
  sum = WarpReduce(temp_storage[warp]).Sum(sum);
  if (row < rows && lane == 0) out[row] = sum;
}

#if !defined(PORTER_EMULATOR)  // the host side, which porter's CPU device does not build
void launch_warp_gemv(const float* matrix, const float* vector, float* out, int rows, int cols, cudaStream_t stream) {  // expect: API003
  warp_gemv<128><<<(rows + 3) / 4, 128, 0, stream>>>(matrix, vector, out, rows, cols);  // expect: API006
}
#endif
