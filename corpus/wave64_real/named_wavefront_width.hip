// A HIP build that names the wavefront's width and keeps the 32-lane code around it (llama.cpp's
// issue 3630: WARP_SIZE set to 64 for gfx9, and garbage out, since its reductions still shuffled
// within 32 lanes and its per-warp sums sat in 32 slots). `threadIdx.x % WARP_SIZE` counts lanes
// to 64 as `% 64` does: the kernel is written for the wavefront, so its 32s are the bugs. The
// second kernel names the width throughout and stays silent. Written for porter.
#include <hip/hip_runtime.h>
#define WARP_SIZE 64

__device__ __forceinline__ float half_sum(float x) {
  for (int mask = 16; mask > 0; mask >>= 1) {  // expect: WRP002
    x += __shfl_xor(x, mask, 32);  // expect: WRP004
  }
  return x;
}

__global__ void rms_norm(const float* x, float* dst, int ncols, float eps) {
  const int row = blockIdx.x;
  float tmp = 0.0f;
  for (int col = threadIdx.x; col < ncols; col += blockDim.x) tmp += x[row * ncols + col] * x[row * ncols + col];
  tmp = half_sum(tmp);
  __shared__ float s_sum[32];  // expect: WRP003
  const int warp_id = threadIdx.x / WARP_SIZE;
  const int lane_id = threadIdx.x % WARP_SIZE;
  if (lane_id == 0) s_sum[warp_id] = tmp;
  __syncthreads();
  tmp = half_sum(s_sum[lane_id]);
  const float scale = rsqrtf(tmp / ncols + eps);
  for (int col = threadIdx.x; col < ncols; col += blockDim.x) dst[row * ncols + col] = scale * x[row * ncols + col];
}

__device__ __forceinline__ float wave_sum(float x) {
  for (int mask = WARP_SIZE / 2; mask > 0; mask >>= 1) x += __shfl_xor(x, mask, WARP_SIZE);
  return x;
}

__global__ void rms_norm_wave(const float* x, float* dst, int ncols, float eps) {
  const int row = blockIdx.x;
  float tmp = 0.0f;
  for (int col = threadIdx.x; col < ncols; col += blockDim.x) tmp += x[row * ncols + col] * x[row * ncols + col];
  tmp = wave_sum(tmp);
  __shared__ float s_sum[1024 / WARP_SIZE];
  const int warp_id = threadIdx.x / WARP_SIZE;
  const int lane_id = threadIdx.x % WARP_SIZE;
  if (lane_id == 0) s_sum[warp_id] = tmp;
  __syncthreads();
  tmp = wave_sum(lane_id < blockDim.x / WARP_SIZE ? s_sum[lane_id] : 0.0f);
  const float scale = rsqrtf(tmp / ncols + eps);
  for (int col = threadIdx.x; col < ncols; col += blockDim.x) dst[row * ncols + col] = scale * x[row * ncols + col];
}

void launch(const float* x, float* dst, int ncols, int nrows, hipStream_t stream) {
  rms_norm<<<nrows, 1024, 0, stream>>>(x, dst, ncols, 1e-6f);
  rms_norm_wave<<<nrows, 1024, 0, stream>>>(x, dst, ncols, 1e-6f);
}
