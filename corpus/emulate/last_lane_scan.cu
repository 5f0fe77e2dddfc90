// corpus: nvcc
// Verify case for porter's CPU device: a block's inclusive prefix sum, each warp scanned by shuffles,
// the warp's total kept by its last lane, tested in place: `(threadIdx.x & 31) == 31` (flashinfer's
// sampling.cuh zeroes `threadIdx.x % 32 == 31` for its scan's down-sweep). Ported with the lane
// widened to the wavefront's (`& (warpSize - 1)`) but the test left at 31, lane 31 of a 64-lane
// wavefront stores the sum of half its wavefront as the total, and every later element of the block
// is off. Written for porter.

__device__ int warp_inclusive_scan(int v) {
  const int lane = threadIdx.x & 31;  // expect: WRP001
  for (int d = 1; d < 32; d <<= 1) {  // expect: WRP002
    const int n = __shfl_up_sync(0xffffffff, v, d);  // expect: SYN001 MSK001
    if (lane >= d) v += n;
  }
  return v;
}

__global__ void last_lane_scan(const int* in, int* out, int n) {
  __shared__ int totals[32];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  v = warp_inclusive_scan(v);
  const int warp = threadIdx.x >> 5;  // expect: WRP001
  if ((threadIdx.x & 31) == 31) totals[warp] = v;  // expect: WRP001 WRP001
  __syncthreads();
  if (warp == 0) {
    int t = threadIdx.x < (blockDim.x >> 5) ? totals[threadIdx.x] : 0;  // expect: WRP001
    t = warp_inclusive_scan(t);
    if (threadIdx.x < (blockDim.x >> 5)) totals[threadIdx.x] = t;  // expect: WRP001
  }
  __syncthreads();
  if (warp > 0) v += totals[warp - 1];
  if (i < n) out[i] = v;
}
