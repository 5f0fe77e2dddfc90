// corpus: torch
// Python binding for the scale kernel.
#include <torch/extension.h>

void scale_cuda(torch::Tensor x, double factor);

void scale(torch::Tensor x, double factor) {
  TORCH_CHECK(x.is_cuda(), "x must be a CUDA tensor");
  TORCH_CHECK(x.scalar_type() == torch::kFloat, "x must be float32");
  scale_cuda(x, factor);
}

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("scale", &scale, "scale a tensor in place"); }
