// corpus: torch
// The kernel of the scale extension, launched on PyTorch's current stream.
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <cuda_runtime.h>  // expect: API005

__global__ void scale_kernel(float* x, float factor, int64_t n) {
  int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) x[i] *= factor;
}

void scale_cuda(torch::Tensor x, double factor) {
  const int64_t n = x.numel();
  const int threads = 256;
  const int blocks = static_cast<int>((n + threads - 1) / threads);
  cudaStream_t stream = at::cuda::getCurrentCUDAStream();  // expect: API003
  scale_kernel<<<blocks, threads, 0, stream>>>(x.data_ptr<float>(), static_cast<float>(factor), n);  // expect: API006
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}
