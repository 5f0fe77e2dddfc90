// A HIP port of "one warp per row" kernels: 32 threads to a row (`threadIdx.x >> 5`, `& 31`),
// R rows to a block (`blockIdx.y * kRowsPerBlock + warp`), launched with `kWarpSize *
// kRowsPerBlock` threads (the shape of an RWKV-7 time-mix layer norm's HIP port, whose 64-bit
// masks were written for wave64 while its ladders and broadcasts stayed 32-lane, read in
// RWKV-Vibe/RWKV-LM-V7 pull request 20). On a 64-lane wavefront two rows share each wavefront: the
// ladder from 16 still sums each row alone at its lane 0, but a broadcast from lane 0 without a
// width hands the first row's total to the second. The 32s stay (widened, the block would cover
// half its rows); the shuffles get the row's width. Written for porter.
#include <hip/hip_runtime.h>

constexpr int kHeadSize = 64;
constexpr int kWarpSize = 32;
constexpr int kRowsPerBlock = 16;
constexpr int kThreads = kWarpSize * kRowsPerBlock;

__device__ inline float row_total(float v) {
  for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down(v, offset);  // expect: WRP016
  return v;
}

__global__ void centre_rows(const float* __restrict__ x, float* __restrict__ y, float* __restrict__ mean, long ngroups, long nrows) {
  const int warp = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  const long row = static_cast<long>(blockIdx.y) * kRowsPerBlock + warp;
  if (row >= nrows) return;
  const long idx = row * (ngroups * kHeadSize) + blockIdx.x * kHeadSize + lane * 2;
  const float total = row_total(x[idx] + x[idx + 1]);
  const float m = __shfl(total, 0) * (1.0f / kHeadSize);  // expect: WRP016
  if (lane == 0) mean[row * ngroups + blockIdx.x] = m;
  y[idx] = x[idx] - m;
  y[idx + 1] = x[idx + 1] - m;
}

void centre(const float* x, float* y, float* mean, long ngroups, long nrows, hipStream_t stream) {
  const dim3 blocks(ngroups, (nrows + kRowsPerBlock - 1) / kRowsPerBlock);
  hipLaunchKernelGGL(centre_rows, dim3(blocks), dim3(kThreads), 0, stream, x, y, mean, ngroups, nrows);
}
