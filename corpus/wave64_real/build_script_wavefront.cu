// corpus: nvcc
// A project whose ROCm branch takes the wavefront width from its build script (a `-D` the script
// computes by asking the installed GPU), while its NVIDIA branch spells the warp width. The port,
// built by CMake, porter build or a CI machine without a GPU, stops at an undeclared identifier
// unless the width is given where the script is not run. Written for porter.
#if defined(__HIP_PLATFORM_AMD__)
#include <hip/hip_runtime.h>
static constexpr int kLanesPerGroup = PLATFORM_LANES;  // expect: WRP011
#else
#include <cuda_runtime.h>
static constexpr int kLanesPerGroup = 32;
#endif

// one group of lanes per row: each lane sums a strided slice, then the group's lanes add up
__global__ void row_sums(const float* in, float* out, int rows, int cols) {
  const int lane = threadIdx.x % kLanesPerGroup;
  const int row = blockIdx.x * (blockDim.x / kLanesPerGroup) + threadIdx.x / kLanesPerGroup;
  if (row >= rows) return;
  float sum = 0.0f;
  for (int c = lane; c < cols; c += kLanesPerGroup) sum += in[row * cols + c];
  for (int offset = kLanesPerGroup / 2; offset > 0; offset /= 2) {
#if defined(__HIP_PLATFORM_AMD__)
    sum += __shfl_down(sum, offset, kLanesPerGroup);
#else
    sum += __shfl_down_sync(0xffffffffu, sum, offset, kLanesPerGroup);
#endif
  }
  if (lane == 0) out[row] = sum;
}
