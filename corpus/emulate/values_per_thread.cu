// Four values a thread (the shape of llama.cpp's quantize_q8_1): the value index is the thread's
// position times 4, so `iqs % 32` picks the first thread of each 8, the one that writes its group's
// scale, not a lane of a 32-lane warp. Each group of 8 threads finds its 32 values' largest magnitude
// with width-8 shuffles. Right at any wavefront width; porter's port must leave `% 32` as it is.
#include <cstdint>

#define VALUES_PER_GROUP 32

__global__ void quantize_groups(const float* x, int8_t* q, float* scales, int n) {
  const int i0 = (blockDim.x * blockIdx.x + threadIdx.x) * 4;
  if (i0 >= n) return;
  const int iqs = i0 % (4 * VALUES_PER_GROUP);
  float amax = fmaxf(fmaxf(fabsf(x[i0]), fabsf(x[i0 + 1])), fmaxf(fabsf(x[i0 + 2]), fabsf(x[i0 + 3])));
  for (int offset = 4; offset > 0; offset >>= 1) {
    amax = fmaxf(amax, __shfl_xor_sync(0xFFFFFFFF, amax, offset, 8));  // expect: MSK001 SYN001
  }
  const float d = amax / 127.0f;
  const float inv = d > 0.0f ? 1.0f / d : 0.0f;
  for (int k = 0; k < 4; ++k) q[i0 + k] = (int8_t)roundf(x[i0 + k] * inv);
  if (iqs % 32 != 0) {
    return;
  }
  scales[i0 / VALUES_PER_GROUP] = d;
}
