// A planted port of ../power_ladder_scan.cu as porter made it at 804eab7: lane, warp and last lane
// widened to the wavefront, the ladder's exponent left at 5 (offsets up to 16). Right at 32 lanes; at
// 64, lane 32 and above sum only the 32 lanes below them, and each wavefront's total misses its
// first half.
__global__ void block_scan(const int* in, int* out) {
  __shared__ int warp_sum[32];
  const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  int incl = in[blockIdx.x * blockDim.x + threadIdx.x];
  for (int step = 0; step < 5; step++) {  // expect: WRP002
    const int up = __shfl_up(incl, 1 << step);
    if (lane >= 1 << step) incl += up;
  }
  if (lane == warpSize - 1) warp_sum[warp] = incl;
  __syncthreads();
  int base = 0;
  for (int w = 0; w < warp; w++) base += warp_sum[w];
  out[blockIdx.x * blockDim.x + threadIdx.x] = base + incl;
}
