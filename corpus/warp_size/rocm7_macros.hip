// HIP code written when warpSize was a constexpr, with its width carried by macros (the shape of a
// real extension's ROCm branch, which stopped compiling on RDNA4 under ROCm 7: "variable length
// array declaration cannot have 'static' storage duration", and "reference to device function
// 'operator int' in host function" where host code sized the block). Written for porter.
#include <hip/hip_runtime.h>

#define NUM_WARPS (1024 / warpSize)  // expect: WRP009
#define WARP_SIZE warpSize  // expect: WRP009
#define NUM_THREADS (NUM_WARPS * WARP_SIZE)
#define HALF_WARP (warpSize / 2)

__global__ void row_norm(const float* x, float* y, int dim) {
  int warp_id = threadIdx.x / WARP_SIZE;
  int lane_id = threadIdx.x % WARP_SIZE;
  __shared__ float sums[NUM_WARPS];
  float sum = 0.0f;
  for (int column = threadIdx.x; column < dim; column += NUM_THREADS) sum += x[blockIdx.x * dim + column] * x[blockIdx.x * dim + column];
  for (int offset = HALF_WARP; offset > 0; offset /= 2) sum += __shfl_xor(sum, offset);
  if (lane_id == 0) sums[warp_id] = sum;
  __syncthreads();
  sum = lane_id < NUM_WARPS ? sums[lane_id] : 0.0f;
  for (int offset = HALF_WARP; offset > 0; offset /= 2) sum += __shfl_xor(sum, offset);
  for (int column = threadIdx.x; column < dim; column += NUM_THREADS) y[blockIdx.x * dim + column] = x[blockIdx.x * dim + column] * rsqrtf(sum / dim + 1e-6f);
}

void row_norm_rows(const float* x, float* y, int rows, int dim, hipStream_t stream) {
  int warps_per_block = NUM_THREADS / 64;
  int lanes = warpSize;  // expect: WRP009
  hipLaunchKernelGGL(row_norm, dim3(rows), dim3(warps_per_block * lanes), 0, stream, x, y, dim);
}

// Not HIP's `warpSize`: the device's width from its properties, and a template's own parameter.
#define DEVICE_WARP (props.warpSize)

int device_warp_width() {
  hipDeviceProp_t props;
  if (hipGetDeviceProperties(&props, 0) != hipSuccess) return 0;
  return DEVICE_WARP;
}

template <int warpSize>
int threads_for(int warps) {
  return warps * warpSize;
}
