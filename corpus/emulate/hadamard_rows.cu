// corpus: nvcc
// Verify case for porter's CPU device: kernels of one 32-thread row to a block (bounded at 32
// threads) that call a header's warp helpers (hadamard_rows.cuh), as exllamav3's hadamard.cu and
// routing.cu do. The port keeps the helpers' 32s (the header's fixes are suggested, since a row
// kernel of this file calls them) and passes at 64 lanes; the second kernel's bounds, ported as
// PORTER_LAUNCH_BOUNDS(32, 4), still make it a row kernel to a second conversion. Written for porter.
#include "hadamard_rows.cuh"

__global__ __launch_bounds__(32) void hadamard_rows(const float* in, float* out) {
  hadamard_row_128(in + blockIdx.x * 128, out + blockIdx.x * 128);
}

__global__ __launch_bounds__(32, 4) void normalise_first_k(const float* in, float* out, int k) {  // expect: LBD001
  const float v = in[blockIdx.x * 32 + threadIdx.x];
  const float total = row_sum_first_k(v, k);
  out[blockIdx.x * 32 + threadIdx.x] = v / total;
}
