// corpus: nvcc
// Warp-level helpers: broadcasts, scans, all-lane loops and per-warp scratch.
#include <cooperative_groups.h>  // expect: API005
namespace cg = cooperative_groups;

constexpr int kWarpSize = 32;  // the stride of global_warp_rows' 32-thread rows: right as written
constexpr int kLog2WarpSize = 5;  // never used: a log2 of the warp width by its name only

__device__ float last_lane_value(float v) {
  return __shfl_sync(0xffffffff, v, 31);  // expect: WRP002 SYN001 MSK001
}

__device__ float butterfly_max(float v) {
  v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, 16));  // expect: SYN001 MSK001
  v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, 8));  // expect: SYN001 MSK001
  v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, 4));  // expect: SYN001 MSK001
  v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, 2));  // expect: SYN001 MSK001
  v = fmaxf(v, __shfl_xor_sync(0xffffffff, v, 1));  // expect: SYN001 MSK001
  return v;
}

__device__ float inclusive_scan(float v, int lane) {
  for (int offset = 1; offset < 32; offset *= 2) {  // expect: WRP002
    float up = __shfl_up_sync(0xffffffff, v, offset, 32);  // expect: WRP004 SYN001 MSK001
    if (lane >= offset) v += up;
  }
  return v;
}

__device__ float gather_all_lanes(float v) {
  float total = 0.0f;
  for (int src = 0; src < 32; ++src) total += __shfl_sync(0xffffffff, v, src);  // expect: WRP005 SYN001 MSK001
  return total;
}

__global__ void tile_sum(const float* in, float* out) {
  auto warp = cg::tiled_partition<32>(cg::this_thread_block());  // expect: CGR003 WRP007
  float v = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int i = warp.size() / 2; i > 0; i /= 2) v += warp.shfl_down(v, i);
  if (warp.thread_rank() == 0) out[blockIdx.x] = v;
}

// Each 32 threads of the grid take a row, and the host launches 32 threads a row: widened, the
// kernel would take half the rows it is launched for. Its 32s (and butterfly_max's, which only it
// calls) are the rows' width and stay; on a 64-lane wavefront two rows share one.
__global__ void global_warp_rows(const float* m, float* row_max, int rows, int cols) {
  const int gwarp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (gwarp >= rows) return;
  float best = -1e30f;
  for (int c = lane; c < cols; c += kWarpSize) best = fmaxf(best, m[gwarp * cols + c]);
  best = butterfly_max(best);
  if (lane == 0) row_max[gwarp] = best;
}
