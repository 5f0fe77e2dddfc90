// A planted port of ../last_lane_scan.cu as porter made it before the last-lane test taken in place
// was read: the lane, the warp, the ladder's bound and the warp count widened to the wavefront, the
// `== 31` left. Right at 32 lanes; at 64, lane 31 of each wavefront stores the sum of its first 32
// elements as the wavefront's total, and every element after it in the block is off.
__device__ int warp_inclusive_scan(int v) {
  const int lane = threadIdx.x & (warpSize - 1);
  for (int d = 1; d < warpSize; d <<= 1) {
    const int n = __shfl_up_sync(__activemask(), v, d);  // expect: SYN001 SYN001
    if (lane >= d) v += n;
  }
  return v;
}

__global__ void last_lane_scan(const int* in, int* out, int n) {
  __shared__ int totals[32];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  v = warp_inclusive_scan(v);
  const int warp = threadIdx.x / warpSize;
  if ((threadIdx.x & (warpSize - 1)) == 31) totals[warp] = v;  // expect: WRP001
  __syncthreads();
  if (warp == 0) {
    int t = threadIdx.x < blockDim.x / warpSize ? totals[threadIdx.x] : 0;
    t = warp_inclusive_scan(t);
    if (threadIdx.x < blockDim.x / warpSize) totals[threadIdx.x] = t;
  }
  __syncthreads();
  if (warp > 0) v += totals[warp - 1];
  if (i < n) out[i] = v;
}
