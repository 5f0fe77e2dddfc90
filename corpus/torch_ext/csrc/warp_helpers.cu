// corpus: torch
// An extension's helpers that size things with PyTorch's warp-size macro.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cudnn/Handle.h>  // expect: TRX002

constexpr int kMaxWarps = 1024 / C10_WARP_SIZE;  // expect: TRX001

__global__ void row_sum(const float* x, float* out, int cols) {
  __shared__ float partial[kMaxWarps];
  const int warp = threadIdx.x / C10_WARP_SIZE;
  const int lane = threadIdx.x % C10_WARP_SIZE;
  float v = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) v += x[blockIdx.x * cols + c];
  for (int o = C10_WARP_SIZE / 2; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffffffffffull, v, o);  // expect: SYN001
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (int w = 0; w < blockDim.x / C10_WARP_SIZE; ++w) total += partial[w];
    out[blockIdx.x] = total;
  }
}

void launch_row_sum(const float* x, float* out, int rows, int cols) {
  const int threads = 256;
  const int warps = threads / C10_WARP_SIZE;  // expect: TRX001
  (void)warps;
  row_sum<<<rows, threads, 0, at::cuda::getCurrentCUDAStream()>>>(x, out, cols);  // expect: API006
}

void* cudnn_handle() { return at::native::getCudnnHandle(); }  // expect: TRX002
