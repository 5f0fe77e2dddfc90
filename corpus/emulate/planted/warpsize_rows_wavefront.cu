// A planted port of ../warpsize_rows.cu as porter made it before it read `warpSize` in a row kernel:
// the shuffle got the row's width (WRP016) and the full mask the row's (MSK001); `warpSize` stayed,
// the wavefront's 64 on the CPU device at 64 lanes. Right at 32 lanes; at 64 the stride skips lanes
// 32-63's elements, and the ladder's shuffle by 32, past the row, adds each lane's own value.
__global__ void block_row_sums(const float* x, float* out, int cols) {
  const int lane = threadIdx.x % warpSize;  // expect: WRP021
  float s = 0.0f;
  for (int i = lane; i < cols; i += warpSize) s += x[blockIdx.x * cols + i];  // expect: WRP021
  for (int o = warpSize / 2; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffull, s, o, 32);  // expect: WRP021 SYN001
  if (lane == 0) out[blockIdx.x] = s;
}
