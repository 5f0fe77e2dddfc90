// A planted port of ../fragment_shifts.cu as porter made it at 9dae229: lane, warp and the shuffle's
// width widened to the wavefront. Right at 32 lanes; at 64, a lane reads past its 32-value fragment
// and a block of 256 threads writes only the first 160 of its 256 outputs.
__global__ void fragment_shifts(const float* in, float* out) {
  const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  const float* fragment = in + (blockIdx.x * 8 + warp) * 32;
  float v = fragment[lane];
  float below = __shfl_down_sync(__activemask(), v, 4, warpSize);  // expect: SYN001 SYN001
  __syncwarp();  // expect: SYN002
  out[(blockIdx.x * 8 + warp) * 32 + lane] = v + below;
}
