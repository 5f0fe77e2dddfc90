// A HIP port whose warp width is chosen by a project macro that a list of targets defines, not by
// the target macros themselves: the shape of bitsandbytes' common header between its PRs 2012 and
// 2059, whose `IS_CDNA` list left gfx900-gfx906 and gfx940/gfx941 to the `#else` arm's 32. Right on
// the targets listed; gfx90a's device pass defines neither `__gfx942__` nor `__gfx950__`, reads 32
// on a 64-lane wavefront, and the lane, the ladder and the leader test below work in halves of it.
// Written for porter.
#include <hip/hip_runtime.h>

#if defined(__gfx942__) || defined(__gfx950__)
#define HAS_WAVE64_LIST 1
#endif

#if defined(HAS_WAVE64_LIST)
#define ROW_LANES 64
#else
#define ROW_LANES 32  // expect[gfx90a]: WRP022
#endif

__global__ void row_maxima(const float* rows, float* maxima, int width) {
  const int lane = threadIdx.x % ROW_LANES;
  float best = -1e30f;
  for (int i = lane; i < width; i += ROW_LANES) best = fmaxf(best, rows[blockIdx.x * width + i]);
  for (int offset = ROW_LANES / 2; offset > 0; offset /= 2) best = fmaxf(best, __shfl_down(best, offset));
  if (lane == 0) maxima[blockIdx.x] = best;
}
