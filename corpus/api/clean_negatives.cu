// corpus: nvcc
// Portable code that must stay silent: no CUDA API names, only look-alikes.
#include <cstdint>

namespace detail {
// A project's own helpers may start with "cuda" in lower case without being CUDA APIs.
inline int cudaish_round_up(int x, int to) { return (x + to - 1) / to * to; }
struct cuda_config {
  int cudaDevice;  // a field spelled like a runtime name is not a call
  int cu_count;
};
}  // namespace detail

// The string and the comment mention cudaMemcpy, cudaStream_t and CUresult: text only.
static const char* kHelp = "call cudaMemcpy with cudaMemcpyDeviceToHost";

__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

int configure(detail::cuda_config& c) {
  c.cudaDevice = detail::cudaish_round_up(c.cu_count, 4);
  return kHelp[0] == 'c' ? c.cudaDevice : 0;
}
