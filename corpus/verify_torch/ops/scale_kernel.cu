// corpus: torch
// A CUDA op: needs a CUDA (or ROCm) build of torch and its GPU; elsewhere verify says it did not run.
#include <torch/extension.h>

__global__ void scale_kernel(const float* in, float* out, float alpha, int64_t n) {
  int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  if (i < n) out[i] = alpha * in[i];
}

torch::Tensor scale(torch::Tensor x, double alpha) {
  auto out = torch::empty_like(x);
  int64_t n = x.numel();
  int threads = 256;
  int blocks = (int)((n + threads - 1) / threads);
  scale_kernel<<<blocks, threads>>>(x.data_ptr<float>(), out.data_ptr<float>(), (float)alpha, n);  // expect: API006
  return out;
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("scale", &scale, "alpha * x"); }
