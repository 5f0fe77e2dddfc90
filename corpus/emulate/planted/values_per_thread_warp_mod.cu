// A planted port of ../values_per_thread.cu: `iqs % 32` became `iqs % warpSize`, the fix porter
// suggested (WRP001) before it followed the thread's stride. Right at 32 lanes; at 64 only the first
// thread of every 16 writes its group's scale, and half of the scales are never written.
#include <cstdint>

#define VALUES_PER_GROUP 32

__global__ void quantize_groups(const float* x, int8_t* q, float* scales, int n) {
  const int i0 = (blockDim.x * blockIdx.x + threadIdx.x) * 4;
  if (i0 >= n) return;
  const int iqs = i0 % (4 * VALUES_PER_GROUP);
  float amax = fmaxf(fmaxf(fabsf(x[i0]), fabsf(x[i0 + 1])), fmaxf(fabsf(x[i0 + 2]), fabsf(x[i0 + 3])));
  for (int offset = 4; offset > 0; offset >>= 1) {
    amax = fmaxf(amax, __shfl_xor_sync(0xFFFFFFFFFFFFFFFFull, amax, offset, 8));  // expect: SYN001
  }
  const float d = amax / 127.0f;
  const float inv = d > 0.0f ? 1.0f / d : 0.0f;
  for (int k = 0; k < 4; ++k) q[i0 + k] = (int8_t)roundf(x[i0 + k] * inv);
  if (iqs % warpSize != 0) {
    return;
  }
  scales[i0 / VALUES_PER_GROUP] = d;
}
