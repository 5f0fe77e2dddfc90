// corpus: nvcc project
// One group of PROJ_WARP_SIZE threads per output pixel, striding over channels from its lane and
// reducing with proj_warp_sum (widths.cuh). With 64 on RDNA the group spans two wavefronts: each
// half sums alone, the second half's result is lost. Written for porter.
#include "widths.cuh"

__global__ void pixel_dot(const float* a, const float* b, float* out, int pixels, int channels) {
  int index = threadIdx.x + blockIdx.x * blockDim.x;
  const int lane_id = index % PROJ_WARP_SIZE;  // expect[gfx1100]: WRP015
  const int pixel = index / PROJ_WARP_SIZE;  // expect[gfx1100]: WRP015
  if (pixel >= pixels) return;
  float sum = 0.f;
  for (int c = lane_id; c < channels; c += PROJ_WARP_SIZE) sum += a[pixel * channels + c] * b[c];  // expect[gfx1100]: WRP015
  sum = proj_warp_sum(sum);
  if (lane_id == 0) out[pixel] = sum;
}
