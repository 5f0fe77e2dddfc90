// corpus: nvcc
// Warp helpers in a header with no kernel of its own, in the shape of exllamav3's
// quant/hadamard_inner.cuh and reduction.cuh: a Hadamard transform of 128 values over 32 lanes (4
// to a lane, a butterfly of `__shfl_xor_sync` below 32, the lane `threadIdx.x & 31`) and a sum of a
// row's first k lanes (a ladder from 16, then lane 0's total to every lane). Their callers are
// kernels of 32-thread blocks in another file (hadamard_rows.cu): one row to a block, so on a
// 64-lane wavefront lanes 32-63 do not run. The 32s are right for those callers and this file
// cannot see them: porter reports the 32s with their fix suggested, not applied (widened, the
// butterfly and the ladder read lanes that never ran), and takes the row's half of the wavefront
// as the shuffles' mask. Written for porter.
#pragma once

__device__ inline void hadamard_row_128(const float* in, float* out) {
  const int t = threadIdx.x & 31;  // expect: WRP001
  float v[4];
  for (int i = 0; i < 4; ++i) v[i] = in[t * 4 + i];
  const float s0 = v[0] + v[1], d0 = v[0] - v[1], s1 = v[2] + v[3], d1 = v[2] - v[3];
  v[0] = s0 + s1;
  v[1] = d0 + d1;
  v[2] = s0 - s1;
  v[3] = d0 - d1;
  for (int i = 1; i < 32; i <<= 1) {  // expect: WRP002
    for (int j = 0; j < 4; ++j) {
      const float other = __shfl_xor_sync(0xffffffff, v[j], i);  // expect: MSK001 SYN001
      v[j] = (t & i) ? other - v[j] : v[j] + other;
    }
  }
  for (int i = 0; i < 4; ++i) out[t * 4 + i] = v[i] * 0.088388347648f;  // 1 / sqrt(128)
}

__device__ inline float row_sum_first_k(float v, int k) {
  const int lane = threadIdx.x % 32;  // expect: WRP001
  if (lane >= k) v = 0.0f;
  for (int offset = 32 >> 1; offset > 0; offset >>= 1)  // expect: WRP002
    v += __shfl_down_sync(0xffffffff, v, offset);  // expect: MSK001 SYN001
  return __shfl_sync(0xffffffffu, v, 0);  // expect: MSK001 SYN001
}
